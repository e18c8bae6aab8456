package models

import (
	"net/url"
	"regexp"
	"strings"
)

// The placeholders of a Kubernetes pool's KubeDCGMURL, in Kubernetes' own $(VAR) style: the
// node's name and its InternalIP.
const (
	DCGMNodeName = "$(NODE_NAME)"
	DCGMNodeIP   = "$(NODE_IP)"
)

// dcgmPlaceholder matches any $(…) in a KubeDCGMURL: only the two above are known.
var dcgmPlaceholder = regexp.MustCompile(`\$\([^)]*\)`)

// KubeDCGMURLOf is the address of the dcgm-exporter page of the pool's node of that name and
// InternalIP; "" when the pool reads no exporters.
func (c PoolConfig) KubeDCGMURLOf(node, ip string) string {
	if c.KubeDCGMURL == "" {
		return ""
	}
	return strings.NewReplacer(DCGMNodeName, node, DCGMNodeIP, ip).Replace(c.KubeDCGMURL)
}

// checkKubeDCGM adds the rules of the dcgm-exporter address of a Kubernetes pool's nodes:
// for that backend only; an http or https URL with a host once the node is put in; naming
// the node (by name or IP), since one page per node is read and a page every node shares
// would give every node the same cards' readings.
func checkKubeDCGM(ps *Problems, c PoolConfig, bad func(...string) bool) {
	if c.KubeDCGMURL == "" || !c.Kubernetes() || bad("backend", "kube_dcgm_url") {
		return // of another backend, checkBackend refuses it
	}
	for _, p := range dcgmPlaceholder.FindAllString(c.KubeDCGMURL, -1) {
		if p != DCGMNodeName && p != DCGMNodeIP {
			ps.Add(fieldErr("kube_dcgm_url", "names %s: only %s and %s are put in", p, DCGMNodeName, DCGMNodeIP))
			return
		}
	}
	if !strings.Contains(c.KubeDCGMURL, DCGMNodeName) && !strings.Contains(c.KubeDCGMURL, DCGMNodeIP) {
		ps.Add(fieldErr("kube_dcgm_url", "must name the node by %s or %s: each node's exporter is read apart", DCGMNodeName, DCGMNodeIP))
		return
	}
	u, err := url.Parse(c.KubeDCGMURLOf("gpu-node-1", "10.0.0.1"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		ps.Add(fieldErr("kube_dcgm_url", "must be an http or https URL of dcgm-exporter's page, e.g. http://%s:9400/metrics", DCGMNodeIP))
	}
}
