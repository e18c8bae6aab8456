// Package handlers is what every area of Kashi's HTTP handlers shares: the settings, clock
// and queue (Core), who is asking (Principal, Who, the access levels), reading a request
// (PathID, DecodeJSON, Bearer), and answering it (Render, APIError, StoreError, Locale). The
// areas themselves (board, tasks, projects, pools, bills, agent, people, services) are one
// package each under handlers/, never importing one another; web composes them and maps
// every URL to one of their actions.
package handlers

import (
	"context"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/notify"
	"kashi/phrase"
	"kashi/scaler"
	"kashi/scheduler"
	"kashi/sso"
)

// Scheduler is what the handlers need of the scheduler loop: a wake-up after a change, the
// queue as it would decide it now, and a task not yet submitted tried on it (read-only).
type Scheduler interface {
	Trigger()
	Queue(ctx context.Context, now time.Time) (scheduler.QueueView, error)
	Try(ctx context.Context, now time.Time, p scheduler.Pending) (scheduler.Trial, error)
}

// Config holds the settings handlers use.
type Config struct {
	// JoinToken lets agents register; empty disables registration.
	JoinToken string
	// IdleAfter and SaturatedAfter are when a held-idle or saturated card stands out.
	IdleAfter      time.Duration
	SaturatedAfter time.Duration
	// StaleAfter is when a card that has not reported is shown as stale.
	StaleAfter time.Duration
	// TaskLimits bound submitted tasks.
	TaskLimits models.TaskLimits
	// Sessions bound a login's life.
	Sessions models.SessionLimits
	// SecureCookies marks cookies Secure (the public URL is https).
	SecureCookies bool
	// Demo shows the demo users on the login page.
	Demo bool
	// Location is the billing time zone: months (budgets, bills) begin there.
	Location *time.Location
	// ScaleTrigger wakes the scaling loop after a pool's configuration changed (the
	// scaler.Scaler's Trigger); nil means nothing is woken.
	ScaleTrigger func()
	// Flavors lists the providers' flavors for the pool form (a *scaler.Flavors); nil means
	// the flavor is typed.
	Flavors FlavorLister
	// Archive is where records are archived, s3://bucket/prefix; "" without an archive.
	Archive string
	// Sign-in through the organisation's directory (#38). OIDC is the OpenID provider; nil
	// offers none. SSORules are the configuration file's mapping rules, applied with the
	// stored ones. PasswordAdminsOnly lets only local admins sign in with a password
	// (break-glass). PublicURL is where people reach Kashi, for the provider's logout.
	OIDC *sso.OIDC
	// LDAP is the directory the login form's name and password are checked against when
	// they are no local user's; nil for none.
	LDAP *sso.LDAP
	// Chats are the team chats people sign in through (DingTalk, Feishu, WeCom), in the
	// login page's order.
	Chats              []*sso.Chat
	SSORules           []models.SSORule
	PasswordAdminsOnly bool
	PublicURL          string
	// Leads tells projects' leads a message sent from a page (the pilot review's verdicts),
	// in-app and on the chat channels (a notice.Leads); nil offers no such message.
	Leads LeadsTeller
	// Words is the installation's language (--lang), in which messages to people are worded.
	Words phrase.Locale
	// Clusters is what this replica knows of its Kubernetes pools' clusters (the control
	// loops' kube.Controller); nil knows none.
	Clusters ClusterStates
	// BoardShare is how long one render of a board view serves every viewer of that view
	// (the same view, filter, page, language and role); zero shares a render only while
	// neither the clock nor the board's data moved.
	BoardShare time.Duration
}

// ClusterStates is what this replica's Kubernetes pool controllers know of their clusters, by
// pool name: the one place the pools page and API read it from.
type ClusterStates interface {
	ClusterStates() map[string]api.PoolCluster
}

// LeadsTeller tells the leads of projects m, once per key (a second send tells nobody), and
// returns how many leads were told for the first time.
type LeadsTeller interface {
	TellLeads(ctx context.Context, projectIDs []int64, key string, m notify.Message) (int, error)
}

// FlavorLister lists the flavors a provider offers in a region and zone; ok is false for a
// provider not configured. scaler.Flavors is one.
type FlavorLister interface {
	List(ctx context.Context, provider, region, zone string) (flavors []scaler.Flavor, ok bool, err error)
}

// Core is what every area shares: the settings, the clock and the queue.
type Core struct {
	Cfg   Config
	Now   func() time.Time
	Sched Scheduler
}

// Loc is the billing time zone (UTC when unset).
func (h *Core) Loc() *time.Location {
	if h.Cfg.Location == nil {
		return time.UTC
	}
	return h.Cfg.Location
}
