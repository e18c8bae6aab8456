package handlers

import (
	"kashi/api"
	"kashi/models"
	"kashi/views"
)

// PoolAttributes is what the named pool's configuration states for work across cards and
// nodes and for storage, as the API shows it.
func PoolAttributes(pool string, c models.PoolConfig) api.PoolAttributes {
	a := c.Attributes()
	return api.PoolAttributes{Pool: pool, IntraNodeLink: a.IntraNodeLink, IntraNodeGBytesS: a.IntraNodeGBytesS,
		InterNodeLink: a.InterNodeLink, InterNodePorts: a.InterNodePorts, InterNodePortGbps: a.InterNodePortGbps,
		InterNodeGbps: a.InterNodeGbps(), LocalStorageMBps: a.LocalStorageMBps, SharedStorageMBps: a.SharedStorageMBps}
}

// PlaceAttributes lists the pools of spec in region (their configuration's region) with
// their attributes, in pools' order (by name).
func PlaceAttributes(pools []models.ConfiguredPool, spec, region string) []api.PoolAttributes {
	var out []api.PoolAttributes
	for _, p := range pools {
		if p.Spec == spec && p.Config.Region == region {
			out = append(out, PoolAttributes(p.Name, p.Config))
		}
	}
	return out
}

// PlaceAttrs is PlaceAttributes as pages show them.
func PlaceAttrs(pools []models.ConfiguredPool, spec, region string) []views.PoolAttrs {
	var out []views.PoolAttrs
	for _, a := range PlaceAttributes(pools, spec, region) {
		out = append(out, views.PoolAttrs(a))
	}
	return out
}
