package bills_test

import (
	"net/http"
	"testing"

	"kashi/web/webtest"
)

// BenchmarkBillsPage measures GET /bills for finance on the bill world (two projects, three
// tasks in February, both bills issued) with the clock in March: February's bills, the
// charts' March computed from the ledger and the earlier months' issued bills read.
func BenchmarkBillsPage(b *testing.B) {
	w := webtest.NewBillWorld(b)
	for _, p := range []string{"vision", "nlp"} {
		if r := w.PostAs("finance", "/api/v1/bills/"+p+"/"+webtest.BillMonth+"/issue", "{}"); r.Code != http.StatusCreated {
			b.Fatalf("issue %s = %d %s", p, r.Code, r.Body)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := w.Get("/bills", webtest.Bearer(w.Tokens["finance"])...); r.Code != http.StatusOK {
			b.Fatalf("GET /bills = %d", r.Code)
		}
	}
}
