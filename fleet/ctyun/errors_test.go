package ctyun

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/fleet"
)

// TestErrorClasses maps the cloud's error answers to the classes the scaling loop acts on.
func TestErrorClasses(t *testing.T) {
	tests := map[string]struct {
		fail  fakeError
		class Class
		is    []error
	}{
		"sold out":      {fakeError{code: "Ecs.Flavor.SoldOut"}, ClassCapacity, []error{fleet.ErrCapacity}},
		"no stock":      {fakeError{code: "Ecs.Resource.InsufficientStock"}, ClassCapacity, []error{fleet.ErrCapacity}},
		"quota":         {fakeError{code: "Ecs.Quota.InstanceLimitExceeded"}, ClassQuota, []error{fleet.ErrQuota, fleet.ErrCapacity}},
		"balance":       {fakeError{code: "Order.InsufficientBalance"}, ClassQuota, []error{fleet.ErrQuota, fleet.ErrCapacity}},
		"no permission": {fakeError{http: http.StatusForbidden, code: "Openapi.Forbidden"}, ClassAuth, []error{fleet.ErrAuth}},
		"401 no code":   {fakeError{http: http.StatusUnauthorized, code: "Openapi.Denied"}, ClassAuth, []error{fleet.ErrAuth}},
		"bad parameter": {fakeError{code: "Ecs.Parameter.Invalid"}, ClassOther, nil},
		"server error":  {fakeError{http: http.StatusBadGateway, code: "Openapi.Gateway"}, ClassOther, nil},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			f := newFakeCloud(t, testCreds)
			f.fail[pathCreate] = tt.fail
			_, err := newProvider(t, f, testCreds).Create(context.Background(), req("k-err"))
			e, ok := errors.AsType[*APIError](err)
			if !ok || e.Class != tt.class || e.Code != tt.fail.code {
				t.Fatalf("Create error = %v, want class %s and code %s", err, tt.class, tt.fail.code)
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false", err, target)
				}
			}
			if tt.is == nil && (errors.Is(err, fleet.ErrCapacity) || errors.Is(err, fleet.ErrAuth)) {
				t.Errorf("error %v of class other unwraps to a fleet error", err)
			}
			if n := f.live("kashi-k-err"); n != 0 {
				t.Errorf("a refused create left %d instances", n)
			}
		})
	}
}

// TestWrongSecret signs with a wrong secret: the fake refuses it, the error is an auth
// error, and no error text shows the secret, the signature or the user data.
func TestWrongSecret(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	wrong := Credentials{AK: testCreds.AK, SK: "sk-wrong-secret"}
	p := newProvider(t, f, wrong)
	_, err := p.Create(context.Background(), req("k-auth"))
	if !errors.Is(err, fleet.ErrAuth) || f.badSigs == 0 {
		t.Fatalf("Create with a wrong secret = %v (refused %d), want fleet.ErrAuth", err, f.badSigs)
	}
	_, listErr := p.List(context.Background(), "a100")
	for _, e := range []error{err, listErr} {
		for _, secret := range []string{"sk-wrong-secret", "Signature=", "kj1_join-secret"} {
			if strings.Contains(e.Error(), secret) {
				t.Errorf("error %q shows %q", e, secret)
			}
		}
	}
}

// TestSoldOutKeepsServedKey: a clientToken seen before gets its first answer even once the
// flavor is sold out (here from a second process, while the order is open).
func TestSoldOutKeepsServedKey(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	f.orderDelay = time.Hour
	m, err := newProvider(t, f, testCreds).Create(context.Background(), req("k-served"))
	if err != nil {
		t.Fatal(err)
	}
	f.ExhaustCapacity()
	again, err := newProvider(t, f, testCreds).Create(context.Background(), req("k-served"))
	if err != nil || again.ID != m.ID {
		t.Errorf("Create of a served key when sold out = %+v, %v; want %s", again, err, m.ID)
	}
}
