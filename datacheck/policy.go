package datacheck

import (
	"errors"
	"io/fs"
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

// lookPath looks for path inside the roots, every link resolved so that a link inside a root
// cannot point the check elsewhere: found when it exists there; answered when the check could
// look and the file system said whether it is there. A path outside the roots (or any path
// when there are none; the store refuses such checks at submit) or that resolves outside
// them, or a file system that fails otherwise, gives no answer.
func (p Policy) lookPath(path string) (found, answered bool) {
	if !filepath.IsAbs(path) || !models.InDataRoots(p.Roots, filepath.Clean(path)) {
		return false, false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, errors.Is(err, fs.ErrNotExist)
	}
	roots := make([]string, 0, len(p.Roots))
	for _, r := range p.Roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			roots = append(roots, rr)
		}
	}
	if !models.InDataRoots(roots, real) {
		return false, false
	}
	if _, err = os.Stat(real); err != nil {
		return false, errors.Is(err, fs.ErrNotExist)
	}
	return true, true
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
