package models

import (
	"encoding/json"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
)

// checkDataLocations checks where a task's data is in each region and returns it as stored:
// at most maxPlaces regions, each a name, among the task's regions when it names some; each
// location an absolute path or a URI with a scheme and a host (s3://bucket/set,
// https://data.example.com/set), at most 1,024 bytes.
func checkDataLocations(nt NewTask) (string, error) {
	if len(nt.DataLocations) == 0 {
		return "", nil
	}
	if len(nt.DataLocations) > maxPlaces {
		return "", fieldErr("data_locations", "at most %d regions", maxPlaces)
	}
	for _, region := range slices.Sorted(maps.Keys(nt.DataLocations)) {
		field := "data_locations." + region
		if err := checkName("data_locations", region, 100); err != nil {
			return "", err
		}
		if strings.ContainsFunc(region, unicode.IsControl) {
			return "", fieldErr("data_locations", "must not contain control characters")
		}
		if len(nt.Regions) > 0 && !slices.Contains(nt.Regions, region) {
			return "", fieldErr(field, "names the region %q, which is not one of regions", region)
		}
		if !validLocation(nt.DataLocations[region]) {
			return "", fieldErr(field, "must be an absolute path or a URI such as s3://bucket/set, at most 1,024 bytes")
		}
	}
	b, _ := json.Marshal(nt.DataLocations) // strings; never fails
	return string(b), nil
}

// validLocation reports whether loc is an absolute path or a URI with a scheme and a host,
// valid UTF-8 without control characters or spaces, at most 1,024 bytes.
func validLocation(loc string) bool {
	if loc == "" || len(loc) > 1024 || !utf8.ValidString(loc) || strings.ContainsFunc(loc, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r)
	}) {
		return false
	}
	if path.IsAbs(loc) {
		return true
	}
	u, err := url.Parse(loc)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// Checkable reports whether the readiness checks can look at a data location: an absolute
// path (under a data root) or an http(s) URL. Other URIs (s3://, hdfs://) are only passed on.
func Checkable(loc string) bool {
	if path.IsAbs(loc) {
		return true
	}
	u, err := url.Parse(loc)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// DataLocationMap is where the task's data is in each region; nil for none.
func (t Task) DataLocationMap() map[string]string {
	if t.DataLocations == "" {
		return nil
	}
	var out map[string]string
	json.Unmarshal([]byte(t.DataLocations), &out) // written by the store; always decodes
	return out
}

// dataRegion is the region of the node's pool when one of tasks names data locations (so
// a poll of tasks without any costs no query); "" otherwise or when the pool has none.
func dataRegion(tx *gorm.DB, nodeID int64, tasks []Task) (string, error) {
	if !slices.ContainsFunc(tasks, func(t Task) bool { return t.DataLocations != "" }) {
		return "", nil
	}
	var regions []string
	err := tx.Table("pools").Select("pools.region").Joins("JOIN nodes ON nodes.pool_id = pools.id").
		Where("nodes.id = ?", nodeID).Scan(&regions).Error
	if err != nil || len(regions) == 0 {
		return "", err
	}
	return regions[0], nil
}
