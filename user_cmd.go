package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"kashi/models"
)

// runUser handles `kashi user add`.
func runUser(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		return errors.New(`usage: kashi user add --name NAME --role admin|finance|viewer|user [--project P --project-role lead|member]`)
	}
	var db, name, role, project, projectRole string
	f := newFlags("user add", getenv, stderr)
	f.String(&db, "db", "kashi.db", "SQLite file, or a postgres:// DSN")
	f.String(&name, "name", "", "the user's login name")
	f.String(&role, "role", models.RoleUser, "admin, finance, viewer, or user (rights through projects)")
	f.String(&project, "project", "", "a project to join (created if missing)")
	f.String(&projectRole, "project-role", models.ProjectRoleMember, "lead or member of --project")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	password := getenv("KASHI_PASSWORD")
	generated := password == ""
	if generated {
		password, _ = models.NewToken("")
		password = password[:20]
	}
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	now := time.Now()
	u, err := store.CreateUser(ctx, name, password, role, now)
	if err != nil {
		return err
	}
	if err := store.Audit(ctx, now, "cli", models.AuditUserCreate, nil, "user "+u.Name, nil, map[string]string{"name": u.Name, "role": u.Role}); err != nil {
		return err
	}
	if project != "" {
		p, err := store.EnsureProject(ctx, project, now)
		if err != nil {
			return err
		}
		if err := store.SetMember(ctx, p.ID, u.ID, projectRole); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "user %s (%s) created\n", u.Name, u.Role)
	if generated {
		fmt.Fprintf(stdout, "password (shown once): %s\n", password)
	}
	return nil
}

// runToken handles `kashi token create`.
func runToken(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: kashi token create --user NAME [--name LABEL] [--scope read|write]")
	}
	var db, user, name, scope string
	f := newFlags("token create", getenv, stderr)
	f.String(&db, "db", "kashi.db", "SQLite file, or a postgres:// DSN")
	f.String(&user, "user", "", "the user the token acts as")
	f.String(&name, "name", "cli", "a label to recognise the token by")
	f.String(&scope, "scope", models.ScopeWrite, "read (GET only) or write")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	u, err := store.UserByName(ctx, user)
	if err != nil {
		return fmt.Errorf("--user %q: no such user", user)
	}
	now := time.Now()
	token, t, err := store.CreateAPIToken(ctx, u.ID, name, scope, now)
	if err != nil {
		return err
	}
	if err := store.Audit(ctx, now, "cli", models.AuditTokenCreate, nil, fmt.Sprintf("token %d of %s", t.ID, u.Name), nil, map[string]string{"name": name, "scope": scope}); err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	return nil
}
