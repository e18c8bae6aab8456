package main

import (
	"context"
	"errors"
	"io"

	"kashi/cli"
)

// runCLI runs a CLI verb (submit, tasks, show…) against a server's JSON API.
func runCLI(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return cli.Run(ctx, args, cli.Env{Getenv: getenv, Stdout: stdout, Stderr: stderr})
}

// exitCode is the process exit code for err: the one a CLI verb asks for, else 1.
func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}
