// Package board holds the pages of the occupancy board (cards and the compact grid, its hand-
// written card renderer), the GPU and node pages with their history charts.
package board
