// Package pools holds the pages of pools with their settings, versions, sizes and bookings,
// calibration, and the fleet's alerts.
package pools
