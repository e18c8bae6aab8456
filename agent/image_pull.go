package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// pullTimeout bounds one image pull.
const pullTimeout = 30 * time.Minute

// Puller is a Runner that can fetch a container image ahead of the tasks that need it.
type Puller interface {
	Pull(ctx context.Context, image string) error
}

// pullImages pulls the images the server named at registration, one after another, with a
// runner that can, then closes done so that the agent takes tasks. A failed pull is logged:
// the task's own run pulls the image again.
func (a *Agent) pullImages(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	p, ok := a.runner.(Puller)
	if !ok || len(a.prePull) == 0 {
		return
	}
	for _, image := range a.prePull {
		start := time.Now()
		if err := p.Pull(ctx, image); err != nil {
			if ctx.Err() != nil {
				return
			}
			a.log.Warn("agent could not pre-pull an image", "image", image, "err", err)
			continue
		}
		a.log.Info("agent pre-pulled an image", "image", image, "took", time.Since(start).Round(time.Second))
	}
}

// Pull fetches image with the node's container runtime; without one there is nothing to do.
func (r SupervisedRunner) Pull(ctx context.Context, image string) error {
	if r.Container == nil {
		return nil
	}
	if !imageRefOK(image) {
		return fmt.Errorf("agent: pull: %q is not an image reference", image)
	}
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Container.program(), "pull", image)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("agent: %s pull %s: %w: %s", r.Container.Runtime, image, err, lastLine(out))
	}
	return nil
}

// imageRefOK refuses what could be read as an option of the runtime, or is no reference.
func imageRefOK(image string) bool {
	return image != "" && len(image) <= 255 && !strings.HasPrefix(image, "-") &&
		!strings.ContainsFunc(image, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// lastLine is the last non-empty line of out, at most 200 bytes.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	l := lines[len(lines)-1]
	if len(l) > 200 {
		l = strings.ToValidUTF8(l[:200], "")
	}
	return l
}
