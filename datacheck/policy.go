package datacheck

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// CheckPath reports whether a path check may look at p: an absolute path inside one of the
// roots. It looks at the name only; links are resolved when the check runs.
func (p Policy) CheckPath(path string) error {
	if len(p.Roots) == 0 {
		return fmt.Errorf("path checks are off on this server (no --data-root)")
	}
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%q is not an absolute path", path)
	}
	if inside(p.Roots, filepath.Clean(path)) {
		return nil
	}
	return fmt.Errorf("%q is outside the data roots %s", path, strings.Join(p.Roots, ", "))
}

// pathExists reports whether path exists inside the roots once every link is resolved, so a
// link inside a root cannot point the check elsewhere.
func (p Policy) pathExists(path string) bool {
	if p.CheckPath(path) != nil {
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
	if !inside(roots, real) {
		return false
	}
	_, err = os.Stat(real)
	return err == nil
}

// inside reports whether the clean absolute path is one of roots or below one.
func inside(roots []string, path string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(filepath.Clean(r), path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
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
