// The template fixture with pools in two regions, for the places form's tests.

package webtest

import (
	"context"
	"testing"

	"kashi/models"
)

// PlacesFixture is the template fixture with pools of two specs in two regions.
func PlacesFixture(t *testing.T) TemplateFixture {
	t.Helper()
	f := NewTemplateFixture(t)
	ctx := context.Background()
	for _, pl := range []struct{ pool, spec, region string }{{"a100", A100Spec, "cn-east"}, {"h800", "H800-80G", "cn-west"}} {
		if _, err := f.S.Store.SavePoolConfig(ctx, pl.pool, models.PoolConfig{Provider: "static", Spec: pl.spec, GPUsPerNode: 4,
			Region: pl.region, MaxNodes: 1}, "tester", "", T0); err != nil {
			t.Fatal(err)
		}
	}
	f.S.Register(Node("w1").InPool("h800").Cards(H800Name, H800MiB, 4))
	return f
}
