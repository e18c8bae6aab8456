package billing

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// bookingFixture: alpha books 4 A100 cards from hour 10 to 20 (40 card-hours) and holds 2
// of them through the window, plus a card before it; beta holds 3 cards in the window,
// which are not alpha's. A100 is 15 yuan a card-hour.
func bookingFixture(t *testing.T, pct int) *fixture {
	f := newFixture(t, "2026-03", "UTC").project(1, "alpha").project(2, "beta").price(0, a100, 1500, 2500).
		task(1, 1, "train", models.TaskSucceeded, 0, 20).hold(1, 1, 1, a100, 10, 20, false).hold(1, 1, 2, a100, 10, 20, false).
		task(2, 1, "early", models.TaskSucceeded, 0, 5).hold(2, 1, 3, a100, 0, 5, false).
		task(3, 2, "other", models.TaskSucceeded, 0, 20).hold(3, 2, 4, a100, 10, 20, false).hold(3, 2, 5, a100, 10, 20, false).
		hold(3, 2, 6, a100, 10, 20, false)
	f.in.Reservations = []models.Reservation{{ID: 7, ProjectID: 1, Spec: a100, GPUs: 4, StartsAt: f.at(10), EndsAt: f.at(20)}}
	f.in.UnusedBookingPct = map[string]int{a100: pct}
	return f
}

// TestBookingUnusedHalf: a reservation half used bills its unused half by the pool's rule:
// free, at a share of the card-hour rate, or in full, on a line of its own; used hours stay on
// the task lines at the normal rate.
func TestBookingUnusedHalf(t *testing.T) {
	tests := map[string]struct {
		pct        int
		rate, want int64
	}{
		"free":     {0, 0, 0},
		"discount": {50, 1500, 15000}, // 20 card-hours × 15 yuan × 50 %
		"full":     {100, 1500, 30000},
		"third":    {33, 1500, 9900},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := bookingFixture(t, tc.pct)
			b := billOf(t, f.compute(t), "alpha")
			wantBooking := []Booking{{ReservationID: 7, Spec: a100, GPUs: 4, StartsAt: f.at(10), EndsAt: f.at(20),
				BookedS: 40 * 3600, UsedS: 20 * 3600, UnusedS: 20 * 3600, ChargePct: tc.pct}}
			if diff := cmp.Diff(wantBooking, b.Bookings); diff != "" {
				t.Errorf("alpha's bookings (-want +got):\n%s", diff)
			}
			it := item(b, ItemBookingUnused, a100)
			if it.NominalS != 20*3600 || it.RateFen != tc.rate || it.Pct != tc.pct || it.AmountFen != tc.want {
				t.Errorf("unused booked item = %+v, want 20 h at %d fen × %d %% = %d fen", it, tc.rate, tc.pct, tc.want)
			}
			// Used: 20 card-hours of train and 5 of early at 15 yuan; plus the unused line.
			if spec := item(b, ItemSpec, a100); b.TotalFen != spec.AmountFen+tc.want || spec.AmountFen != 25*1500 {
				t.Errorf("total %d fen, spec subtotal %d; want %d + %d", b.TotalFen, spec.AmountFen, 25*1500, tc.want)
			}
			if other := billOf(t, f.compute(t), "beta"); len(other.Bookings) != 0 || item(other, ItemBookingUnused, a100).Kind != "" {
				t.Errorf("beta's bill has alpha's booking: %+v", other.Bookings)
			}
		})
	}
}

// TestBookingUse: the cards counted as used are the project's own of the spec, inside the
// window, never more than booked at a time; a month still running counts the window until
// now; overlapping windows fill the earlier one first.
func TestBookingUse(t *testing.T) {
	t.Run("capped at the booked cards", func(t *testing.T) {
		f := bookingFixture(t, 100)
		for g := int64(10); g < 14; g++ { // 4 more cards from 10 to 15: 6 held, 4 booked
			f.hold(1, 1, g, a100, 10, 15, false)
		}
		k := billOf(t, f.compute(t), "alpha").Bookings[0]
		if k.UsedS != (4*5+2*5)*3600 || k.UnusedS != 10*3600 {
			t.Errorf("used %d s, unused %d s; want 30 h and 10 h", k.UsedS, k.UnusedS)
		}
	})
	t.Run("other spec does not count", func(t *testing.T) {
		f := bookingFixture(t, 100).hold(1, 1, 20, h800, 10, 20, false).price(0, h800, 3000, 4000)
		if k := billOf(t, f.compute(t), "alpha").Bookings[0]; k.UsedS != 20*3600 {
			t.Errorf("used %d s with an H800 card, want 20 h", k.UsedS)
		}
	})
	t.Run("month running", func(t *testing.T) {
		f := bookingFixture(t, 100)
		f.in.AsOf = f.at(15)
		k := billOf(t, f.compute(t), "alpha").Bookings[0]
		if k.BookedS != 4*5*3600 || k.UsedS != 2*5*3600 {
			t.Errorf("as of hour 15: booked %d s, used %d s; want 20 h and 10 h", k.BookedS, k.UsedS)
		}
		f.in.AsOf = f.at(9)
		if b := billOf(t, f.compute(t), "alpha"); len(b.Bookings) != 0 || item(b, ItemBookingUnused, a100).Kind != "" {
			t.Errorf("as of hour 9 a window from hour 10 is billed: %+v", b.Bookings)
		}
	})
	t.Run("overlapping windows", func(t *testing.T) {
		f := bookingFixture(t, 100)
		f.in.Reservations = append(f.in.Reservations, models.Reservation{ID: 8, ProjectID: 1, Spec: a100, GPUs: 2,
			StartsAt: f.at(15), EndsAt: f.at(20)})
		f.hold(1, 1, 30, a100, 15, 20, false)
		bs := billOf(t, f.compute(t), "alpha").Bookings
		// 3 cards held 15–20: 4 booked by 7 first, so 8 gets none of them.
		if bs[0].UsedS != (2*5+3*5)*3600 || bs[1].UsedS != 0 || bs[1].UnusedS != 10*3600 {
			t.Errorf("bookings %+v; want 7 used 25 h, 8 none", bs)
		}
	})
}

// TestBookingRules: a spec's rule is the lowest of its pools', a pool that sets none
// counting as the default (100 %), as does a spec without a configured pool.
func TestBookingRules(t *testing.T) {
	pool := func(spec string, pct *int) models.ConfiguredPool {
		return models.ConfiguredPool{Config: models.PoolConfig{Spec: spec, UnusedBookingPct: pct}}
	}
	got := BookingRules([]models.ConfiguredPool{pool(a100, new(100)), pool(a100, new(40)), pool(h800, nil), pool("L40S-48G", new(0))})
	if diff := cmp.Diff(map[string]int{a100: 40, h800: 100, "L40S-48G": 0}, got); diff != "" {
		t.Errorf("BookingRules (-want +got):\n%s", diff)
	}
	if got := bookingRule(got, "T4-16G"); got != 100 {
		t.Errorf("the rule of a spec without a pool = %d %%, want the default 100 %%", got)
	}
}

// TestBookingDownloads: the CSV has the unused item and a row per window; the XLSX reads.
func TestBookingDownloads(t *testing.T) {
	b := billOf(t, bookingFixture(t, 50).compute(t), "alpha")
	var buf bytes.Buffer
	if err := WriteCSV(&buf, []Bill{b}); err != nil {
		t.Fatal(err)
	}
	csv := buf.String()
	for _, want := range []string{
		"预约未用 booking-unused,alpha,2026-03,,,,,,,A100-80G,,,20.000000,0.000000,0.000000,,,,,,,,,15.00,150.00,50 % of the rate",
		"预约 booking,alpha,2026-03,,7,,,,,A100-80G,,booking-unused,40.000000,20.000000,20.000000,,,,,,,,,,,4 cards " +
			time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC).Format(time.RFC3339),
	} {
		if !strings.Contains(csv, want) {
			t.Errorf("CSV lacks %q:\n%s", want, csv)
		}
	}
}
