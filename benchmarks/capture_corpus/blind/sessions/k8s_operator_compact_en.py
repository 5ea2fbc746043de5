# ruff: noqa: E501  (verbatim command output and file contents)
"""Kubebuilder operator stuck in a reconcile hot loop; compaction before the fix is verified (English)."""

from make_sessions import Session

CONTROLLER = '''package controller

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	backupv1alpha1 "github.com/tidewater/backup-operator/api/v1alpha1"
)

// BackupScheduleReconciler turns a BackupSchedule into a CronJob that runs restic.
type BackupScheduleReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

func (r *BackupScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	logger.Info("reconciling", "schedule", req.NamespacedName)

	var bs backupv1alpha1.BackupSchedule
	if err := r.Get(ctx, req.NamespacedName, &bs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	cj, err := r.desiredCronJob(&bs)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyCronJob(ctx, &bs, cj); err != nil {
		return ctrl.Result{}, err
	}

	bs.Status.ObservedGeneration = bs.Generation
	bs.Status.LastReconcileTime = metav1.Now()
	bs.Status.Conditions = readyConditions(cj)
	if err := r.Status().Update(ctx, &bs); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

func (r *BackupScheduleReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&backupv1alpha1.BackupSchedule{}).
		Owns(&batchv1.CronJob{}).
		Complete(r)
}
'''

LOGS = '''2026-04-02T09:14:07.118Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "payments/nightly-pg"}
2026-04-02T09:14:07.161Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "payments/nightly-pg"}
2026-04-02T09:14:07.203Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "payments/nightly-pg"}
2026-04-02T09:14:07.247Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "payments/nightly-pg"}
2026-04-02T09:14:07.290Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "payments/nightly-pg"}
2026-04-02T09:14:07.334Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "search/hourly-es"}
2026-04-02T09:14:07.379Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "payments/nightly-pg"}
2026-04-02T09:14:07.421Z	INFO	reconciling	{"controller": "backupschedule", "schedule": "search/hourly-es"}'''

SUMMARY = """Summary of the conversation so far:

1. Primary request: the backup-operator (kubebuilder, controller-runtime v0.17) uses a full CPU core in staging; its logs show `reconciling` for the same BackupSchedule ~20 times a second. Find and fix the cause.

2. User instructions:
   - "don't touch the CRD schema, v1alpha1 is already installed in three customer clusters and we have no conversion webhook"
   - `make deploy` was rejected: "never deploy from a laptop. staging only gets images that CI built and signed"

3. Findings:
   - Reconcile() in internal/controller/backupschedule_controller.go writes `Status.LastReconcileTime = metav1.Now()` and calls `r.Status().Update` on every pass. Every status write is a new resourceVersion, so the For() watch fires and the object is reconciled again immediately.
   - Tried `ctrl.Result{RequeueAfter: 5 * time.Minute}`: no effect, the loop is driven by the watch event, not by requeueing. Reverted.
   - `go test ./internal/controller/...` silently fails to start envtest (no etcd binary; KUBEBUILDER_ASSETS is only set by `make test` via setup-envtest).

4. In progress: add `predicate.GenerationChangedPredicate{}` to For(), stop setting LastReconcileTime (field stays in the CRD, just unused), and only call Status().Update when the computed status differs (equality.Semantic.DeepEqual). A test counting reconciles was being written in internal/controller/backupschedule_controller_test.go."""


def build() -> Session:
    s = Session("k8s-operator-compact-en", cwd="/home/maya/src/backup-operator", branch="fix/reconcile-hot-loop",
                start="2026-04-02T09:20:31.402Z", version="2.1.62", slug="spinning-kube-heron")
    s.user(
        "backup-operator is burning a full core in staging, the logs are just 'reconciling' for the "
        "same BackupSchedule over and over. figure out why and fix it.\n\none thing: don't touch the "
        "CRD schema. v1alpha1 is already installed in three customer clusters and we have no "
        "conversion webhook",
        wait=4,
    )
    s.bash("kubectl --context staging -n backup-system logs deploy/backup-operator-controller-manager --since=10s | tail -8",
           LOGS, desc="Operator logs in staging")
    s.call(s.read_call("internal/controller/backupschedule_controller.go", CONTROLLER))
    s.grep("LastReconcileTime", content='''api/v1alpha1/backupschedule_types.go:58:	LastReconcileTime metav1.Time `json:"lastReconcileTime,omitempty"`
internal/controller/backupschedule_controller.go:44:	bs.Status.LastReconcileTime = metav1.Now()
config/crd/bases/backup.tidewater.io_backupschedules.yaml:97:              lastReconcileTime:''')
    s.glob("internal/controller/*_test.go", ["internal/controller/suite_test.go",
                                             "internal/controller/backupschedule_controller_test.go"])
    s.call(s.read_call("internal/controller/suite_test.go", '''var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))

	ctx, cancel = context.WithCancel(context.TODO())

	By("bootstrapping test environment")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}

	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	reconcileCounter = &atomic.Int64{}
	k8sManager, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	Expect((&BackupScheduleReconciler{Client: k8sManager.GetClient(), Scheme: k8sManager.GetScheme()}).SetupWithManager(countingManager(k8sManager, reconcileCounter))).To(Succeed())
''', offset=1, limit=20))
    s.think("Status().Update every pass with a timestamp that always changes -> new resourceVersion -> watch event on the primary resource -> enqueue -> reconcile. Classic self-triggering loop. But first check whether maybe the requeue is the driver.")
    s.say(
        "About 23 reconciles per second for `payments/nightly-pg`. Every pass ends with "
        "`r.Status().Update` and a fresh `LastReconcileTime`, so every pass changes the object. "
        "Before touching the watch setup I'll try the cheap thing: give the result an explicit "
        "`RequeueAfter` so it isn't retried immediately."
    )
    s.edit("internal/controller/backupschedule_controller.go", '''		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}''', '''		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: 5 * time.Minute}, nil
}''')
    s.edit("internal/controller/backupschedule_controller.go", '''import (
	"context"
''', '''import (
	"context"
	"time"
''')
    s.bash("make docker-build IMG=ghcr.io/tidewater/backup-operator:dev-hotloop 2>&1 | tail -3", '''#14 exporting layers 1.9s done
#14 writing image sha256:5b1e0f0d9a3c7e21f6a4d2e8b0c1f5a7e9d3b6c8a2f4e1d7c9b3a5e8f2d4c6b1 done
#14 naming to ghcr.io/tidewater/backup-operator:dev-hotloop done''', desc="Build operator image", secs=48)
    s.call(s.rejected_call("Bash", {"command": "make deploy IMG=ghcr.io/tidewater/backup-operator:dev-hotloop",
                                    "description": "Deploy test image to staging"},
                           reason="never deploy from a laptop. staging only gets images that CI built and signed. test it with envtest"))
    s.say("Understood — nothing from here goes to staging. I'll reproduce it in envtest instead.")
    s.bash("go test ./internal/controller/... 2>&1 | tail -6", '''Running Suite: Controller Suite - /home/maya/src/backup-operator/internal/controller
===================================================================================
Random Seed: 1775121771

Will run 4 of 4 specs
[FAILED] in [BeforeSuite] - /home/maya/src/backup-operator/internal/controller/suite_test.go:71 @ 04/02/26 09:31:05.223
  Unexpected error: unable to start control plane itself: failed to start the controlplane. retried 5 times: fork/exec /usr/local/kubebuilder/bin/etcd: no such file or directory
FAIL	github.com/tidewater/backup-operator/internal/controller	0.412s
FAIL''', desc="Controller tests")
    s.call(s.read_call("Makefile", '''.PHONY: test
test: manifests generate fmt vet envtest ## Run tests.
	KUBEBUILDER_ASSETS="$(shell $(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(LOCALBIN) -p path)" go test $$(go list ./... | grep -v /e2e) -coverprofile cover.out
''', offset=88, limit=3))
    s.say(
        "Plain `go test` can't start envtest here: there's no etcd under /usr/local/kubebuilder. "
        "The Makefile's `test` target downloads the binaries with setup-envtest and sets "
        "`KUBEBUILDER_ASSETS`, so `make test` is the way to run these."
    )
    s.bash("make test 2>&1 | tail -5", '''ok  	github.com/tidewater/backup-operator/api/v1alpha1	0.019s	coverage: 12.5% of statements
ok  	github.com/tidewater/backup-operator/internal/controller	9.844s	coverage: 61.0% of statements''', desc="Run tests via make", secs=95)
    s.say("Existing tests pass. Now a test that shows the loop: create a BackupSchedule, wait, count reconciles.")
    s.write("internal/controller/reconcile_count_test.go", '''package controller

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("BackupSchedule reconcile count", func() {
	It("does not reconcile again because of its own status update", func() {
		bs := newTestSchedule("count-me")
		Expect(k8sClient.Create(ctx, bs)).To(Succeed())
		Eventually(cronJobFor(bs)).Should(Exist())
		start := reconcileCounter.Load()
		Consistently(func() int64 { return reconcileCounter.Load() - start }, 3*time.Second).Should(BeNumerically("<=", 1))
	})
})
''')
    s.bash("make test 2>&1 | tail -8", '''  [FAILED] Failed after 0.112s.
  Expected
      <int64>: 41
  to be <=
      <int64>: 1
  In [It] at: /home/maya/src/backup-operator/internal/controller/reconcile_count_test.go:17 @ 04/02/26 09:38:49.601
FAIL	github.com/tidewater/backup-operator/internal/controller	12.102s
FAIL''', desc="Run tests via make", secs=100)
    s.say(
        "Reproduced: 41 reconciles in a tenth of a second even with `RequeueAfter: 5m`. So "
        "the requeue isn't what drives it — the status write produces a watch event on the "
        "BackupSchedule itself and that enqueues it straight away. RequeueAfter was the wrong "
        "lever; reverting it."
    )
    s.edit("internal/controller/backupschedule_controller.go", '''	return ctrl.Result{RequeueAfter: 5 * time.Minute}, nil''', '''	return ctrl.Result{}, nil''')
    s.edit("internal/controller/backupschedule_controller.go", '''	"context"
	"time"
''', '''	"context"
''')
    s.turn_end()
    s.compact(SUMMARY, pre_tokens=163902)
    s.say(
        "Continuing with the fix. Two parts:\n\n"
        "1. `For()` gets `predicate.GenerationChangedPredicate{}`. A status write never bumps "
        "`metadata.generation` (only spec changes do), so our own status updates stop waking "
        "the controller. CronJob changes still come in through `Owns()`.\n"
        "2. `LastReconcileTime` is no longer set (the field stays in the CRD — no schema "
        "change), and `Status().Update` only runs when the new status differs from the old one "
        "(`equality.Semantic.DeepEqual`), so a no-op reconcile writes nothing."
    )
    s.call(s.read_call("internal/controller/backupschedule_controller.go"))
    s.edit("internal/controller/backupschedule_controller.go", '''	bs.Status.ObservedGeneration = bs.Generation
	bs.Status.LastReconcileTime = metav1.Now()
	bs.Status.Conditions = readyConditions(cj)
	if err := r.Status().Update(ctx, &bs); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil''', '''	// Write status only when it changed: every write is a watch event on this object.
	// LastReconcileTime stays in the v1alpha1 schema but is no longer set.
	want := bs.Status.DeepCopy()
	want.ObservedGeneration = bs.Generation
	want.Conditions = readyConditions(cj)
	if equality.Semantic.DeepEqual(*want, bs.Status) {
		return ctrl.Result{}, nil
	}
	bs.Status = *want
	if err := r.Status().Update(ctx, &bs); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil''')
    s.edit("internal/controller/backupschedule_controller.go", '''		For(&backupv1alpha1.BackupSchedule{}).''', '''		// Status writes don't bump metadata.generation, so they no longer trigger a reconcile.
		For(&backupv1alpha1.BackupSchedule{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).''')
    s.edit("internal/controller/backupschedule_controller.go", '''	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"''', '''	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"''')
    s.bash("make test 2>&1 | tail -5", '''ok  	github.com/tidewater/backup-operator/api/v1alpha1	0.021s	coverage: 12.5% of statements
ok  	github.com/tidewater/backup-operator/internal/controller	13.377s	coverage: 64.8% of statements''', desc="Run tests via make", secs=105)
    s.bash("make lint 2>&1 | tail -3", '''/home/maya/src/backup-operator/bin/golangci-lint-v1.59.1 run
0 issues.''', desc="golangci-lint", secs=40)
    s.bash("git diff --stat", ''' internal/controller/backupschedule_controller.go | 19 ++++++++++++++-----
 internal/controller/reconcile_count_test.go      | 18 ++++++++++++++++++
 2 files changed, 32 insertions(+), 5 deletions(-)''')
    s.say(
        "Fixed and green:\n\n"
        "- The loop: every reconcile wrote `status.lastReconcileTime = now()`, and that status "
        "write was itself a watch event on the BackupSchedule, so it reconciled again at once "
        "(~23/s in staging).\n"
        "- `For()` now filters with `GenerationChangedPredicate`, status is only written when it "
        "actually changed, and `lastReconcileTime` is left unset (still in the CRD, no schema "
        "change).\n"
        "- `reconcile_count_test.go` fails on the old code (41 reconciles) and passes now. "
        "`make test` and `make lint` are clean.\n\n"
        "One thing I can't answer from the repo: the customer clusters run release 0.4.x, which "
        "has the same `Reconcile` — do they get a 0.4 patch release, or do they wait for the "
        "next minor?"
    )
    s.turn_end()
    s.user(
        "good, I'll open the PR. no idea about the customers, ask Jonas. and we still don't clean up "
        "the old restic Jobs when a BackupSchedule is deleted, that needs a finalizer at some point",
        wait=140,
    )
    s.say("Noted. I'll leave the finalizer for later; the PR is only the hot-loop fix.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Go kubebuilder operator (controller-runtime, envtest, Ginkgo), English",
        "a rule with its reason in the first prompt (no CRD schema change: three customer clusters, no conversion webhook)",
        "`make deploy` rejected with the user's reason (a rule)",
        "a failed attempt (RequeueAfter) shown wrong by a test, reverted",
        "envtest failing behind `| tail` (exit 0) with plain `go test`, `make test` working",
        "a new test failing behind `| tail` before the fix",
        "auto compaction between diagnosis and fix: compact_boundary and an isCompactSummary entry restating the rules",
        "open question handed to a colleague and a todo in passing at the end",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["CRD"], ["conversion webhook", "customer clusters", "v1alpha1"]],
         "note": "Don't touch the CRD schema: v1alpha1 is installed in three customer clusters and there is no conversion webhook."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["make deploy", "deploy from a laptop"], ["CI"]],
         "note": "Never deploy from a laptop (make deploy): staging only gets images CI built and signed; test with envtest."},
        {"id": "b1", "type": "bug_note",
         "match": [["lastReconcileTime", "status write", "status update"], ["watch event", "reconciled again", "loop"]],
         "note": "Reconcile hot loop: every pass wrote status.lastReconcileTime, and the status write is a watch event on the object, so it reconciled again at once."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["RequeueAfter"], ["watch event", "wrong lever", "41"]],
         "note": "RequeueAfter: 5m did not stop the loop (41 reconciles in the test): the watch event, not the requeue, drives it; reverted."},
        {"id": "d1", "type": "decision",
         "match": [["GenerationChangedPredicate"], ["generation"]],
         "note": "For() filters with GenerationChangedPredicate because status writes never bump metadata.generation; CronJob changes still come via Owns()."},
        {"id": "d2", "type": "decision",
         "match": [["DeepEqual", "only when", "only written when"], ["status"]],
         "note": "Status is written only when it changed (equality.Semantic.DeepEqual) and lastReconcileTime is no longer set (kept in the CRD)."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt", "project_fact"],
         "match": [["etcd", "KUBEBUILDER_ASSETS", "setup-envtest"], ["make test"]],
         "note": "Plain go test can't start envtest (no etcd binary); make test sets KUBEBUILDER_ASSETS via setup-envtest."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["0.4"], ["patch release", "customer", "Jonas"]],
         "note": "Do customer clusters on 0.4.x get a patch release for the loop? Ask Jonas."},
        {"id": "t1", "type": "todo",
         "match": [["finalizer"], ["Job", "deleted"]],
         "note": "Old restic Jobs are not cleaned up when a BackupSchedule is deleted: needs a finalizer."},
        {"id": "v1", "type": "verified_command", "command": "make test"},
        {"id": "v2", "type": "verified_command", "command": "make lint"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "make docker-build IMG=ghcr.io/tidewater/backup-operator:dev-hotloop"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued from a previous conversation"], ["doesn't want to proceed"],
                  ["Summary of the conversation so far"]],
}
