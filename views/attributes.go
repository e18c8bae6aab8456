package views

import "kashi/phrase"

// PoolAttrs is what a pool states for work across cards and nodes and for storage, as pages
// show it: api.PoolAttributes' fields (a conversion makes one of the other), zero for not
// stated.
type PoolAttrs struct {
	Pool              string
	IntraNodeLink     string
	IntraNodeGBytesS  int
	InterNodeLink     string
	InterNodePorts    int
	InterNodePortGbps int
	InterNodeGbps     int
	LocalStorageMBps  int
	SharedStorageMBps int
}

// AttributeParts says what a pool states for work across cards and nodes and for storage,
// one phrase per stated attribute in the page's language: "NVLink 600 GB/s between cards",
// "4×200 Gb/s RoCE between nodes", "no network between nodes", "local disks 3,000 MB/s";
// one phrase saying nothing is stated when nothing is.
func AttributeParts(l phrase.Locale, a PoolAttrs) []string {
	var out []string
	if a.IntraNodeLink != "" {
		link := l.T(phrase.PoolFieldKeyPrefix + "intra_node_link." + a.IntraNodeLink)
		if a.IntraNodeGBytesS > 0 {
			out = append(out, l.T("attr.intra_bw", link, l.Int(a.IntraNodeGBytesS)))
		} else {
			out = append(out, l.T("attr.intra", link))
		}
	}
	switch a.InterNodeLink {
	case "":
	case "none":
		out = append(out, l.T("attr.inter_none"))
	default:
		out = append(out, l.T("attr.inter", l.Int(a.InterNodePorts), l.Int(a.InterNodePortGbps), l.T(phrase.PoolFieldKeyPrefix+"inter_node_link."+a.InterNodeLink)))
	}
	if a.LocalStorageMBps > 0 {
		out = append(out, l.T("attr.local", l.Int(a.LocalStorageMBps)))
	}
	if a.SharedStorageMBps > 0 {
		out = append(out, l.T("attr.shared", l.Int(a.SharedStorageMBps)))
	}
	if len(out) == 0 {
		out = append(out, l.T("attr.unstated"))
	}
	return out
}
