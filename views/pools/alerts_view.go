package pools

// Helpers of alerts.templ.
