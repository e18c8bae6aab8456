package tasks

import (
	"testing"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
	"kashi/views/viewstest"
)

// A task waiting for its project's booked window, and one kept from another project's booked
// cards, say so in both languages.
func TestQueueBookingReasons(t *testing.T) {
	window := views.QueueRow{Reason: api.ReasonReservationWindow}
	booked := views.QueueRow{Reason: api.ReasonNoFreeGPUs, ReasonSpec: "A100-80G", Detail: views.DetailBooked}
	for l, want := range map[phrase.Locale][2]string{
		viewstest.En: {"Starts when its project's booked window opens", "The free cards are booked by another project"},
		viewstest.Zh: {"项目预约的时段开始后启动", "空闲卡已被其他项目预约"},
	} {
		if got := views.ReasonText(l, window); got != want[0] {
			t.Errorf("%s: window reason = %q, want %q", l.Lang, got, want[0])
		}
		if got := views.ReasonText(l, booked); got != want[1] {
			t.Errorf("%s: booked reason = %q, want %q", l.Lang, got, want[1])
		}
	}
	if got := reasonClass(window); got != "reason r-self" {
		t.Errorf("reasonClass(window) = %q", got)
	}
}
