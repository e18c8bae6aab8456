package models

import (
	"fmt"
	"strings"
	"unicode"
)

// specNoise are words in NVML device names that do not tell one spec from another.
var specNoise = map[string]bool{"NVIDIA": true, "GEFORCE": true, "TESLA": true, "SXM": true,
	"SXM2": true, "SXM4": true, "SXM5": true, "PCIE": true, "NVL": true, "HBM3": true, "HBM3E": true}

// SpecOf names a GPU spec from its NVML name and memory, e.g. ("NVIDIA A100-SXM4-80GB", 81920)
// gives "A100-80G" and ("NVIDIA GeForce RTX 4090", 24564) gives "RTX4090-24G".
func SpecOf(name string, memoryTotalMiB int64) string {
	var model strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }) {
		up := strings.ToUpper(w)
		if specNoise[up] || (strings.HasSuffix(up, "GB") && strings.IndexFunc(up, unicode.IsDigit) == 0) {
			continue
		}
		model.WriteString(up)
	}
	gib := (memoryTotalMiB + 512) / 1024
	if model.Len() == 0 {
		return fmt.Sprintf("GPU-%dG", gib)
	}
	return fmt.Sprintf("%s-%dG", model.String(), gib)
}
