// Package people holds the pages of the login page, users, API tokens, the account and the audit
// log.
package people
