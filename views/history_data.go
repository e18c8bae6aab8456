package views

// HistoryRanges are the ranges the GPU and node pages offer, shortest first.
var HistoryRanges = []string{"1h", "24h", "7d", "30d"}
