package handlers

import "testing"

func TestParseYuan(t *testing.T) {
	tests := map[string]struct {
		in     string
		signed bool
		want   int64
		bad    bool
	}{
		"whole":          {in: "12", want: 1200},
		"one decimal":    {in: "12.5", want: 1250},
		"two decimals":   {in: "0.05", want: 5},
		"grouped":        {in: " ¥1,234.56 ", want: 123456},
		"negative":       {in: "-3.05", signed: true, want: -305},
		"unsigned minus": {in: "-3", bad: true},
		"three decimals": {in: "1.234", bad: true},
		"empty":          {in: "", bad: true},
		"letters":        {in: "12a", bad: true},
		"exponent":       {in: "1e3", bad: true},
		"too large":      {in: "99999999999999", bad: true},
		"dot only":       {in: ".5", bad: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseYuan("rate", tc.in, tc.signed)
			if tc.bad {
				if err == nil {
					t.Errorf("parseYuan(%q) = %d, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("parseYuan(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}
