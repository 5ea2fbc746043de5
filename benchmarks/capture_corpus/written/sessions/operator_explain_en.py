# ruff: noqa: E501  (verbatim command output and file contents)
"""Read-only: explain how a Kubernetes operator requeues; nothing is changed (English)."""

from make_sessions import Session

RECONCILE = '''package controller

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	backupv1 "github.com/tidepool-labs/backup-operator/api/v1"
)

const (
	pollInterval   = 30 * time.Second
	maxBackoffStep = 6
)

func (r *BackupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)

	var b backupv1.Backup
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}

	switch b.Status.Phase {
	case backupv1.PhaseSucceeded, backupv1.PhaseFailed:
		return ctrl.Result{}, nil
	case "", backupv1.PhasePending:
		if err := r.startJob(ctx, &b); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: pollInterval}, nil
	case backupv1.PhaseRunning:
		done, err := r.checkJob(ctx, &b)
		if err != nil {
			if isTransient(err) && b.Status.Attempts < maxBackoffStep {
				b.Status.Attempts++
				_ = r.Status().Update(ctx, &b)
				return ctrl.Result{RequeueAfter: backoff(b.Status.Attempts)}, nil
			}
			logger.Error(err, "backup job failed for good")
			return ctrl.Result{}, r.markFailed(ctx, &b, err)
		}
		if !done {
			return ctrl.Result{RequeueAfter: pollInterval}, nil
		}
		return ctrl.Result{}, r.markSucceeded(ctx, &b)
	}
	return ctrl.Result{}, nil
}

func backoff(attempt int) time.Duration {
	return time.Duration(1<<attempt) * 5 * time.Second // 10s, 20s, ... 320s
}
'''

SETUP = '''func (r *BackupReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&backupv1.Backup{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&batchv1.Job{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
}
'''


def build() -> Session:
    s = Session("operator-explain-en", cwd="/home/li/src/backup-operator", branch="main",
                start="2026-02-12T15:20:48.310Z", version="2.1.39", model="claude-sonnet-4-5-20250929")
    s.user("I'm new on this repo. how does the backup controller decide when to requeue a Backup? "
           "just explain it, don't change anything", wait=5)
    s.grep("RequeueAfter|Requeue:", ["internal/controller/backup_controller.go",
                                       "internal/controller/restore_controller.go"])
    s.call(s.read_call("internal/controller/backup_controller.go", RECONCILE),
           s.read_call("internal/controller/setup.go", SETUP))
    s.bash("git log --oneline -5 -- internal/controller/backup_controller.go", """\
9e41c0d controller: cap transient retries at 6 attempts
b7a2f13 controller: exponential backoff for transient job errors
41d09aa controller: poll running jobs every 30s
c3f8e20 controller: ignore finished backups
0a1b2c3 initial backup controller""", desc="Recent history of the controller")
    s.say(
        "Here's how a `Backup` moves through `Reconcile` (`internal/controller/backup_controller.go`):\n\n"
        "**1. Finished backups are never requeued.** `Succeeded` and `Failed` return an empty "
        "`ctrl.Result{}` — no requeue, no error.\n\n"
        "**2. New/Pending:** it starts the backup `Job`, then asks to be called again after "
        "`pollInterval` (30 s). If starting the job fails, it returns the error, and "
        "controller-runtime requeues with its own rate-limited backoff (starting at 5 ms, "
        "doubling up to ~16 min).\n\n"
        "**3. Running:** every 30 s it checks the job.\n"
        "- still running → `RequeueAfter: 30s`\n"
        "- done → marks `Succeeded`, no requeue\n"
        "- error that `isTransient` → bumps `Status.Attempts` and requeues after `backoff()`: "
        "10 s, 20 s, 40 s … up to 320 s at attempt 6\n"
        "- after 6 transient errors, or any non-transient error → marks `Failed`, no requeue\n\n"
        "**Two things that trigger a reconcile besides those timers** (`setup.go`):\n"
        "- `Owns(&batchv1.Job{})`: any change to the backup's Job (e.g. it completes) wakes the "
        "owner immediately, so in practice the 30 s poll is a safety net.\n"
        "- `GenerationChangedPredicate` on `Backup`: spec edits trigger a reconcile, but status "
        "updates don't — which is why bumping `Attempts` doesn't cause a loop.\n\n"
        "Up to 4 Backups reconcile in parallel (`MaxConcurrentReconciles: 4`). The git history "
        "matches this order: polling came first, then backoff, then the cap at 6 attempts."
    )
    s.turn_end()
    s.user("makes sense, thanks. so if the node dies mid-backup it'll just poll until the job "
           "controller reschedules the pod?", wait=80)
    s.say(
        "Yes. The `Job` controller notices the lost pod and creates a new one (within the Job's "
        "`backoffLimit`); meanwhile this reconciler keeps seeing `Running` and polls every 30 s. "
        "Only if the Job itself ends up `Failed` does `checkJob` return an error — and that's "
        "not transient, so the Backup is marked `Failed` right away rather than retried."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "empty: read-only Grep/Read/git log and an explanation",
    ],
    "language": "en",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
