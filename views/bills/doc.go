// Package bills holds the pages of bills with their lines, bookings, models and charts, prices
// and billing plans, adjustments, and the weekly reports.
package bills
