// Package projects holds the pages of projects and their members, quotas, quota requests and
// approvals with their context, reclaim overrides and reservations.
package projects
