package api

// BillsIssued answers the issue of every project's bill of a month: the bills issued now,
// each on its own, and those that could not be, with why. Bills issued before are in
// neither list.
type BillsIssued struct {
	Month string `json:"month"`
	// Issued are the bills issued by this call, by project name; TotalFen sums them.
	Issued   []BillIssued `json:"issued"`
	TotalFen int64        `json:"total_fen"`
	// NotIssued are the bills left unissued, such as one with a spec without a price.
	NotIssued []BillNotIssued `json:"not_issued"`
}

// BillIssued is one bill issued: its project, its total in fen and its checksum.
type BillIssued struct {
	Project  string `json:"project"`
	TotalFen int64  `json:"total_fen"`
	SHA256   string `json:"sha256"`
}

// BillNotIssued is one bill left unissued: its project and why, as an error body says it
// (Field "prices" with MissingPrices naming the specs without a price, or none when another
// request issued it first).
type BillNotIssued struct {
	Project       string   `json:"project"`
	Error         string   `json:"error"`
	Field         string   `json:"field,omitempty"`
	MissingPrices []string `json:"missing_prices,omitempty"`
}
