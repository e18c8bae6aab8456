package models

import (
	"strconv"

	"gorm.io/gorm"
)

// AlertGPUXID is raised when a GPU reports an XID error (the driver's numbered error
// events: a card fallen off the bus, ECC errors, faults of a program); raised again while it
// is open, it counts. It stays open until an admin resolves it, as a card needs looking at.
const AlertGPUXID = "gpu-xid"

// MaxXID is the largest XID error number a reading may carry (api.MaxXID).
const MaxXID = 65535

// raiseXIDAlerts raises an alert, in the transaction tx, for each reading of the group's
// stored jobs that carries an XID error.
func raiseXIDAlerts(tx *gorm.DB, group []*sampleJob, done []sampleDone, byNode map[int64]map[string]*GPU) error {
	for i, j := range group {
		if done[i].err != nil {
			continue
		}
		for _, sm := range j.samples {
			g := byNode[j.nodeID][sm.UUID]
			if sm.XID == 0 || g == nil {
				continue
			}
			in := AlertInput{Kind: AlertGPUXID, Subject: "gpu " + g.UUID, NodeID: g.NodeID, Code: "gpu_xid",
				Params: []string{strconv.Itoa(g.Index), g.UUID, strconv.Itoa(sm.XID)}}
			if _, _, err := raiseAlert(tx, in, j.now); err != nil {
				return err
			}
		}
	}
	return nil
}
