package pools

import (
	"context"
	"log/slog"

	"kashi/models"
	"kashi/views"
	poolsview "kashi/views/pools"
)

// poolFlavors fills the form's flavor choices from the provider's flavors where the form's
// pool is, or why they could not be read.
func (h *Handler) poolFlavors(ctx context.Context, f *poolsview.PoolForm) {
	if h.Cfg.Flavors == nil {
		return
	}
	fs, ok, err := h.Cfg.Flavors.List(ctx, f.Values["provider"], f.Values["region"], f.Values["zone"])
	switch {
	case !ok:
		return
	case err != nil:
		slog.Warn("pool form: flavors", "provider", f.Values["provider"], "err", err)
		f.FlavorsErr = err.Error()
		return
	}
	for _, fl := range fs {
		f.Flavors = append(f.Flavors, poolsview.FlavorOption{Name: fl.Name, GPUModel: fl.GPUModel, GPUs: fl.GPUs, MemoryMiB: fl.MemoryMiB})
	}
}

// checkFlavor refuses a flavor the provider does not offer where the pool is, or whose GPUs
// are not the pool's GPUs per node. A provider whose flavors cannot be read, or that lists
// none, lets any flavor through (the form says why).
func (h *Handler) checkFlavor(ctx context.Context, cfg models.PoolConfig, errs map[string]views.FormError) {
	if cfg.Flavor == "" || h.Cfg.Flavors == nil {
		return
	}
	fs, ok, err := h.Cfg.Flavors.List(ctx, cfg.Provider, cfg.Region, cfg.Zone)
	if !ok || err != nil || len(fs) == 0 {
		return
	}
	for _, f := range fs {
		if f.Name != cfg.Flavor {
			continue
		}
		if f.GPUs != cfg.GPUsPerNode {
			errs["flavor"] = views.FormError{Code: poolsview.FormErrRule, Text: poolsview.FlavorErrGPUs, Args: []any{f.Name, f.GPUs, cfg.GPUsPerNode}}
		}
		return
	}
	errs["flavor"] = views.FormError{Code: poolsview.FormErrRule, Text: poolsview.FlavorErrUnknown,
		Args: []any{cfg.Flavor, regionOf(cfg)}}
}

// flavorStates is cfg with the network between nodes, when cfg leaves it unstated, filled
// with what the provider states of the pool's flavor where the pool is: its bandwidth between
// machines (a cloud's baseline VPC bandwidth) as one Ethernet port of that speed. A provider
// that does not answer, or states nothing, leaves cfg as it is.
func (h *Handler) flavorStates(ctx context.Context, cfg models.PoolConfig) models.PoolConfig {
	if cfg.Flavor == "" || cfg.InterNodeLink != "" || h.Cfg.Flavors == nil {
		return cfg
	}
	fs, ok, err := h.Cfg.Flavors.List(ctx, cfg.Provider, cfg.Region, cfg.Zone)
	if !ok || err != nil {
		return cfg
	}
	for _, f := range fs {
		if f.Name == cfg.Flavor && f.InterNodeGbps > 0 {
			cfg.InterNodeLink, cfg.InterNodePorts = models.LinkEthernet, 1
			cfg.InterNodePortGbps = min(f.InterNodeGbps, models.MaxInterNodePortGbps)
		}
	}
	return cfg
}
