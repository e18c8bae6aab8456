package datacheck

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"

	"kashi/models"
)

// Policy bounds where checks may look.
type Policy struct {
	// Roots are the directories path checks may look under (--data-root); none turns path
	// checks off.
	Roots []string
	// AllowHosts are URL hosts (names or addresses, exactly as in the URL) that may resolve to
	// loopback, link-local or private addresses (--data-check-allow-host).
	AllowHosts []string
}

// pathExists reports whether path exists inside the roots once every link is resolved, so a
// link inside a root cannot point the check elsewhere. A path outside the roots, or any path
// when there are none, is never looked at (the store refuses such checks at submit).
func (p Policy) pathExists(path string) bool {
	if !filepath.IsAbs(path) || !models.InDataRoots(p.Roots, filepath.Clean(path)) {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	roots := make([]string, 0, len(p.Roots))
	for _, r := range p.Roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			roots = append(roots, rr)
		}
	}
	if !models.InDataRoots(roots, real) {
		return false
	}
	_, err = os.Stat(real)
	return err == nil
}

// hostAllowed reports whether an admin allowed host to reach internal addresses.
func (p Policy) hostAllowed(host string) bool { return slices.Contains(p.AllowHosts, host) }

// internal reports whether a URL check must not reach addr: loopback, link-local (the cloud
// metadata address 169.254.169.254 among them), private, shared (100.64/10), unspecified or
// multicast.
func internal(addr netip.Addr) bool {
	addr = addr.Unmap()
	return addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsPrivate() ||
		addr.IsUnspecified() || addr.IsMulticast() || addr.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(addr)
}
