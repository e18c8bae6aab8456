// Package services holds the pages of the Models page: inference services' traffic, latency and
// cost charts.
package services
