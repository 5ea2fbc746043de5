# ruff: noqa: E501  (verbatim command output and file contents)
"""Temporal (Go SDK, self-hosted 1.22): a fraud-check activity inserted mid-workflow breaks replay of running orders; new task queue refused; GetVersion; compaction (English)."""

from make_sessions import Session

ORDER_GO = '''package workflows

import (
\t"time"

\t"go.temporal.io/sdk/temporal"
\t"go.temporal.io/sdk/workflow"

\t"github.com/kestrel-shop/orders/activities"
)

type OrderInput struct {
\tOrderID    string
\tCustomerID string
\tAmountCents int64
\tItems      []activities.Item
}

func OrderWorkflow(ctx workflow.Context, in OrderInput) error {
\tvar a *activities.Activities
\tctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
\t\tStartToCloseTimeout: 30 * time.Second,
\t\tRetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
\t})

\tvar resID string
\tif err := workflow.ExecuteActivity(ctx, a.ReserveStock, in.OrderID, in.Items).Get(ctx, &resID); err != nil {
\t\treturn err
\t}

\tvar fraud activities.FraudResult
\tif err := workflow.ExecuteActivity(ctx, a.CheckFraud, in.CustomerID, in.AmountCents).Get(ctx, &fraud); err != nil {
\t\treturn err
\t}
\tif !fraud.Approved {
\t\treturn workflow.ExecuteActivity(ctx, a.MarkOrderDeclined, in.OrderID, fraud.Reason).Get(ctx, nil)
\t}

\tpayCtx := workflow.WithActivityOptions(ctx, activities.PaymentActivityOptions)
\tif err := workflow.ExecuteActivity(payCtx, a.ChargePayment, in.OrderID, in.AmountCents).Get(ctx, nil); err != nil {
\t\t_ = workflow.ExecuteActivity(ctx, a.ReleaseStock, resID).Get(ctx, nil)
\t\treturn err
\t}

\treturn workflow.ExecuteActivity(ctx, a.ScheduleShipment, in.OrderID).Get(ctx, nil)
}
'''

REPLAY_TEST = '''package workflows

import (
\t"testing"

\t"go.temporal.io/sdk/worker"
)

// Histories exported from staging with
//   temporal workflow show --env staging --workflow-id <id> --output json
// Every history in testdata/ must keep replaying after a change to OrderWorkflow.
func TestReplayOrderHistories(t *testing.T) {
\treplayer := worker.NewWorkflowReplayer()
\treplayer.RegisterWorkflow(OrderWorkflow)
\tfor _, f := range []string{
\t\t"testdata/order_v0_paid.json",
\t\t"testdata/order_v0_in_flight.json",
\t} {
\t\tif err := replayer.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
\t\t\tt.Fatalf("%s: %v", f, err)
\t\t}
\t}
}
'''

WORKER_MAIN = '''package main

import (
\t"log"

\t"go.temporal.io/sdk/client"
\t"go.temporal.io/sdk/worker"

\t"github.com/kestrel-shop/orders/activities"
\t"github.com/kestrel-shop/orders/internal/config"
\t"github.com/kestrel-shop/orders/workflows"
)

const TaskQueue = "orders"

func main() {
\tcfg := config.MustLoad()
\tc, err := client.Dial(client.Options{HostPort: cfg.TemporalHost, Namespace: cfg.Namespace})
\tif err != nil {
\t\tlog.Fatalln("unable to create Temporal client", err)
\t}
\tdefer c.Close()

\tw := worker.New(c, TaskQueue, worker.Options{})
\tw.RegisterWorkflow(workflows.OrderWorkflow)
\tw.RegisterActivity(activities.New(cfg))

\tif err := w.Run(worker.InterruptCh()); err != nil {
\t\tlog.Fatalln("worker stopped", err)
\t}
}
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: The orders worker (Go, go.temporal.io/sdk v1.26, self-hosted Temporal 1.22) started failing workflow tasks in prod after yesterday's deploy (v2.14.0): ~300 OrderWorkflow executions stuck with "[TMPRL1100] nondeterministic workflow". Dani wants them unstuck without losing orders. Stated constraint: don't touch ChargePayment or its activity options (payments team owns them, their idempotency key is built from them).
2. Key Technical Concepts: Temporal replay determinism; commands vs history events; workflow.GetVersion; Worker Versioning (build IDs) is experimental in 1.22 and needs dynamic config flags; WorkflowReplayer tests with JSON histories.
3. Files and Code Sections:
   - workflows/order.go: commit 9f3e1c2 ("add fraud check before payment", v2.14.0) inserted `ExecuteActivity(a.CheckFraud)` between ReserveStock and ChargePayment. Workflows started before the deploy have ChargePayment scheduled at that position in their history.
   - workflows/replay_test.go: TestReplayOrderHistories replays testdata/order_v0_paid.json and testdata/order_v0_in_flight.json (exported from staging, pre-2.14 workflows). Fails with the same TMPRL1100 error as prod.
   - cmd/worker/main.go: TaskQueue = "orders".
4. Errors and fixes:
   - Replay test failure reproduces prod: "history event is ActivityTaskScheduled: (ActivityType:(Name:ChargePayment)), replay command is ScheduleActivityTask: (ActivityType:(Name:CheckFraud))".
   - Tried routing new workflows to a new task queue "orders-v2" (edited cmd/worker/main.go to run two workers): Dani refused — checkout-api (another repo, separate deploy) starts the workflows on "orders", and ops would run two worker fleets. Reverted with git checkout.
5. Pending Tasks: wrap the fraud check in workflow.GetVersion("fraud-check", workflow.DefaultVersion, 1) (Dani agreed: infra won't enable the experimental Worker Versioning flags on 1.22); keep the replay test green; add a unit test for the new path.
6. Current Work: about to edit workflows/order.go with GetVersion.'''


def build() -> Session:
    s = Session("temporal-getversion-compact-en", cwd="/home/dani/src/orders", branch="hotfix/order-nondeterminism",
                start="2026-10-14T08:41:19.302Z", version="2.1.72", slug="replay-safe-fraud-check")
    s.user(
        "prod orders worker is failing workflow tasks since yesterdays deploy (2.14.0). temporal ui shows ~300 OrderWorkflow stuck with this:\n\n"
        "```\nWorkflow task failed: [TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: "
        "(ActivityId:2, ActivityType:(Name:ChargePayment), TaskQueue:(Name:orders)), replay command is ScheduleActivityTask: "
        "(ActivityId:2, ActivityType:(Name:CheckFraud), TaskQueue:(Name:orders))\n```\n\n"
        "need them unstuck, we cant lose those orders. we're on self hosted temporal 1.22. "
        "and dont touch ChargePayment or its activity options, payments team owns that and their idempotency key is built from them",
        wait=4,
    )
    s.call(s.read_call("workflows/order.go", ORDER_GO),
           s.bash_call("git log --oneline -5 -- workflows/order.go", '''9f3e1c2 add fraud check before payment
4b8d0aa order workflow: release stock when payment fails
1c7e93f order workflow: shipment activity
e02a6b1 initial order workflow''', desc="Recent changes to the workflow"))
    s.bash("git show 9f3e1c2 --stat", '''commit 9f3e1c2d0b6f4c1e8a7d2f3b5c6e9a0b1d2c3e4f
Author: Leo Brandt <leo@kestrel.shop>
Date:   Mon Oct 13 16:02:44 2026 +0200

    add fraud check before payment

 activities/fraud.go  | 41 +++++++++++++++++++++++++++++++++++++++++
 workflows/order.go   |  8 ++++++++
 2 files changed, 49 insertions(+)''', desc="What 2.14.0 changed")
    s.say(
        "That's the cause. `9f3e1c2` inserted `CheckFraud` **between** `ReserveStock` and `ChargePayment`. Temporal rebuilds a "
        "workflow's state by replaying its code against the recorded history: every workflow started before the deploy has "
        "`ChargePayment` as its second scheduled activity in history, but the new code now produces `CheckFraud` at that "
        "position, so the SDK refuses to continue (TMPRL1100). The workflow task keeps retrying, which is why they look stuck "
        "rather than failed — nothing is lost yet.\n\n"
        "To work on this safely I want a replay test that uses real pre-2.14 histories. There's already a replayer test; let me "
        "check what it covers."
    )
    s.glob("workflows/**/*_test.go", ["workflows/order_test.go", "workflows/replay_test.go"])
    s.read("workflows/replay_test.go", REPLAY_TEST)
    s.bash("ls -la workflows/testdata/", '''total 96
drwxr-xr-x 2 dani dani  4096 Sep 29 11:20 .
drwxr-xr-x 3 dani dani  4096 Oct 13 16:02 ..
-rw-r--r-- 1 dani dani 41877 Sep 29 11:20 order_v0_in_flight.json
-rw-r--r-- 1 dani dani 46210 Sep 29 11:20 order_v0_paid.json''', desc="Replay fixtures")
    s.bash("go test ./workflows/ -run TestReplay -v", '''=== RUN   TestReplayOrderHistories
2026/10/14 08:44:51 INFO  ReplayWorkflowHistory Namespace ReplayNamespace TaskQueue ReplayTaskQueue WorkerID replayID WorkflowType OrderWorkflow WorkflowID replayID RunID 7c2e1f0a-3b9d-4e62-a1f8-5d0c9b7e2a41 Attempt 1
2026/10/14 08:44:51 ERROR Workflow panic Namespace ReplayNamespace TaskQueue ReplayTaskQueue WorkerID replayID WorkflowType OrderWorkflow WorkflowID replayID RunID 7c2e1f0a-3b9d-4e62-a1f8-5d0c9b7e2a41 Attempt 1 Error [TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: (ActivityId:2, ActivityType:(Name:ChargePayment), TaskQueue:(Name:ReplayTaskQueue)), replay command is ScheduleActivityTask: (ActivityId:2, ActivityType:(Name:CheckFraud), TaskQueue:(Name:ReplayTaskQueue)) StackTrace process event for ReplayTaskQueue [panic]:
go.temporal.io/sdk/internal.panicIllegalState(...)
\t/home/dani/go/pkg/mod/go.temporal.io/sdk@v1.26.1/internal/internal_command_state_machine.go:440
go.temporal.io/sdk/internal.(*commandsHelper).getCommand(...)
\t/home/dani/go/pkg/mod/go.temporal.io/sdk@v1.26.1/internal/internal_command_state_machine.go:1005
    replay_test.go:20: testdata/order_v0_paid.json: replay workflow failed with failure: [TMPRL1100] nondeterministic workflow: history event is ActivityTaskScheduled: (ActivityId:2, ActivityType:(Name:ChargePayment), TaskQueue:(Name:ReplayTaskQueue)), replay command is ScheduleActivityTask: (ActivityId:2, ActivityType:(Name:CheckFraud), TaskQueue:(Name:ReplayTaskQueue))
--- FAIL: TestReplayOrderHistories (0.03s)
FAIL
FAIL\tgithub.com/kestrel-shop/orders/workflows\t0.212s
FAIL''', code=1, desc="Replay pre-2.14 histories", secs=6)
    s.say(
        "Reproduced locally with the same error as prod. (The replay test existed but CI only runs `go test -short`, and this "
        "test isn't skipped under -short... let me not guess — I'll check CI later.)\n\n"
        "Quickest way out I can see without touching the workflow logic: leave `orders` to drain on the old code and send new "
        "workflows to a new task queue `orders-v2` served by the new code. I'll make the worker binary run both."
    )
    s.read("cmd/worker/main.go", WORKER_MAIN)
    s.edit("cmd/worker/main.go", '''const TaskQueue = "orders"''', '''const (
\tTaskQueue   = "orders"    // drains workflows started before 2.14
\tTaskQueueV2 = "orders-v2" // new workflows (with fraud check)
)''')
    s.edit("cmd/worker/main.go", '''\tw := worker.New(c, TaskQueue, worker.Options{})
\tw.RegisterWorkflow(workflows.OrderWorkflow)
\tw.RegisterActivity(activities.New(cfg))

\tif err := w.Run(worker.InterruptCh()); err != nil {
\t\tlog.Fatalln("worker stopped", err)
\t}''', '''\tacts := activities.New(cfg)
\tlegacy := worker.New(c, TaskQueue, worker.Options{})
\tlegacy.RegisterWorkflowWithOptions(workflows.OrderWorkflowV1, workflow.RegisterOptions{Name: "OrderWorkflow"})
\tlegacy.RegisterActivity(acts)

\tw := worker.New(c, TaskQueueV2, worker.Options{})
\tw.RegisterWorkflow(workflows.OrderWorkflow)
\tw.RegisterActivity(acts)

\tif err := legacy.Start(); err != nil {
\t\tlog.Fatalln("legacy worker", err)
\t}
\tdefer legacy.Stop()
\tif err := w.Run(worker.InterruptCh()); err != nil {
\t\tlog.Fatalln("worker stopped", err)
\t}''')
    s.say("Next I'd copy the pre-2.14 workflow body into `OrderWorkflowV1` so the legacy worker can replay the old histories, and point the starter at `orders-v2`. Where is the workflow started from?")
    s.turn_end()
    s.user(
        "no wait. the starter is in checkout-api, different repo, deploys on its own schedule. and ops would have to babysit two queues "
        "and a frozen copy of the workflow forever. not doing that. isn't there a versioning thing in temporal for exactly this",
        wait=70,
    )
    s.bash("git checkout -- cmd/worker/main.go && git status --short", "", desc="Revert the two-queue change")
    s.say(
        "Reverted. Yes, there are two ways:\n\n"
        "1. **`workflow.GetVersion`** (patching): the workflow code itself branches on a version marker recorded in history. "
        "Old executions have no marker → `DefaultVersion` → old path (no fraud check); new ones record version 1 → fraud check. "
        "Works on any server version, one worker fleet, one queue.\n"
        "2. **Worker Versioning (build IDs)**: the server pins each workflow to the build that started it. On 1.22 that API is "
        "still experimental and has to be switched on with `frontend.workerVersioningDataAPIs` / "
        "`frontend.workerVersioningWorkflowAPIs` in dynamic config.\n\n"
        "I'd go with GetVersion unless you can get those flags turned on."
    )
    s.turn_end()
    s.user("infra won't flip experimental flags on the prod cluster, we asked for something else last quarter. getversion it is", wait=40)
    s.compact(SUMMARY, pre_tokens=151377)
    s.say("Wrapping the fraud check in `GetVersion`. Old histories have no marker and take the `DefaultVersion` path, which is exactly the pre-2.14 code.")
    s.read("workflows/order.go", ORDER_GO)
    s.edit("workflows/order.go", '''\tvar fraud activities.FraudResult
\tif err := workflow.ExecuteActivity(ctx, a.CheckFraud, in.CustomerID, in.AmountCents).Get(ctx, &fraud); err != nil {
\t\treturn err
\t}
\tif !fraud.Approved {
\t\treturn workflow.ExecuteActivity(ctx, a.MarkOrderDeclined, in.OrderID, fraud.Reason).Get(ctx, nil)
\t}
''', '''\t// Workflows started before 2.14.0 have no "fraud-check" marker in their history and must
\t// replay without the fraud check (TMPRL1100 otherwise). Remove the DefaultVersion branch only
\t// when no execution started before 2.14.0 is open any more.
\tif v := workflow.GetVersion(ctx, "fraud-check", workflow.DefaultVersion, 1); v == 1 {
\t\tvar fraud activities.FraudResult
\t\tif err := workflow.ExecuteActivity(ctx, a.CheckFraud, in.CustomerID, in.AmountCents).Get(ctx, &fraud); err != nil {
\t\t\treturn err
\t\t}
\t\tif !fraud.Approved {
\t\t\treturn workflow.ExecuteActivity(ctx, a.MarkOrderDeclined, in.OrderID, fraud.Reason).Get(ctx, nil)
\t\t}
\t}
''')
    s.bash("go test ./workflows/ -run TestReplay -v", '''=== RUN   TestReplayOrderHistories
2026/10/14 09:31:07 INFO  ReplayWorkflowHistory Namespace ReplayNamespace TaskQueue ReplayTaskQueue WorkerID replayID WorkflowType OrderWorkflow WorkflowID replayID RunID 7c2e1f0a-3b9d-4e62-a1f8-5d0c9b7e2a41 Attempt 1
2026/10/14 09:31:07 INFO  ReplayWorkflowHistory Namespace ReplayNamespace TaskQueue ReplayTaskQueue WorkerID replayID WorkflowType OrderWorkflow WorkflowID replayID RunID 0d91b3c6-6e27-4f0a-9b85-31a4c7d2e6f9 Attempt 1
--- PASS: TestReplayOrderHistories (0.04s)
PASS
ok  \tgithub.com/kestrel-shop/orders/workflows\t0.198s''', desc="Replay pre-2.14 histories", secs=6)
    s.say("Both old histories replay now. Next, a unit test for the new path, including a declined order:")
    s.read("workflows/order_test.go", '''package workflows

import (
\t"testing"

\t"github.com/stretchr/testify/mock"
\t"github.com/stretchr/testify/require"
\t"go.temporal.io/sdk/testsuite"

\t"github.com/kestrel-shop/orders/activities"
)

func TestOrderWorkflow_HappyPath(t *testing.T) {
\tvar ts testsuite.WorkflowTestSuite
\tenv := ts.NewTestWorkflowEnvironment()
\tvar a *activities.Activities
\tenv.OnActivity(a.ReserveStock, mock.Anything, "o-1", mock.Anything).Return("res-1", nil)
\tenv.OnActivity(a.CheckFraud, mock.Anything, "c-1", int64(4200)).Return(activities.FraudResult{Approved: true}, nil)
\tenv.OnActivity(a.ChargePayment, mock.Anything, "o-1", int64(4200)).Return(nil)
\tenv.OnActivity(a.ScheduleShipment, mock.Anything, "o-1").Return(nil)

\tenv.ExecuteWorkflow(OrderWorkflow, OrderInput{OrderID: "o-1", CustomerID: "c-1", AmountCents: 4200})
\trequire.True(t, env.IsWorkflowCompleted())
\trequire.NoError(t, env.GetWorkflowError())
\tenv.AssertExpectations(t)
}
''')
    s.edit("workflows/order_test.go", '''\tenv.AssertExpectations(t)
}
''', '''\tenv.AssertExpectations(t)
}

func TestOrderWorkflow_FraudDeclined(t *testing.T) {
\tvar ts testsuite.WorkflowTestSuite
\tenv := ts.NewTestWorkflowEnvironment()
\tvar a *activities.Activities
\tenv.OnActivity(a.ReserveStock, mock.Anything, "o-2", mock.Anything).Return("res-2", nil)
\tenv.OnActivity(a.CheckFraud, mock.Anything, "c-2", int64(99000)).Return(activities.FraudResult{Approved: false, Reason: "velocity"}, nil)
\tenv.OnActivity(a.MarkOrderDeclined, mock.Anything, "o-2", "velocity").Return(nil)
\tenv.OnActivity(a.ReleaseStock, mock.Anything, "res-2").Return(nil).Once()

\tenv.ExecuteWorkflow(OrderWorkflow, OrderInput{OrderID: "o-2", CustomerID: "c-2", AmountCents: 99000})
\trequire.True(t, env.IsWorkflowCompleted())
\trequire.NoError(t, env.GetWorkflowError())
\tenv.AssertExpectations(t)
}
''')
    s.bash("go test ./...", '''?   \tgithub.com/kestrel-shop/orders/cmd/worker\t[no test files]
ok  \tgithub.com/kestrel-shop/orders/activities\t0.044s
ok  \tgithub.com/kestrel-shop/orders/internal/config\t0.006s
--- FAIL: TestOrderWorkflow_FraudDeclined (0.01s)
    order_test.go:43: 
        \tError Trace:\t/home/dani/src/orders/workflows/order_test.go:43
        \tError:      \tFAIL:\tReleaseStock(string,string)
        \t            \t\tat: [/home/dani/src/orders/workflows/order_test.go:35]
        \tTest:       \tTestOrderWorkflow_FraudDeclined
        \tMessages:   \tmock: Expected to have been called 1 time(s) but was called 0 time(s)
    order_test.go:43: FAIL: 1 out of 4 expectation(s) were met.
        \tThe code you are testing needs to return the following:
        \tReleaseStock(string,string)
        \tat: [/home/dani/src/orders/workflows/order_test.go:35]
FAIL
FAIL\tgithub.com/kestrel-shop/orders/workflows\t0.231s
FAIL''', code=1, desc="All tests", secs=14)
    s.say(
        "The replay test passes, but the new test caught a real bug from 2.14.0 itself: when fraud declines an order, the "
        "workflow marks it declined and returns **without releasing the stock reservation**, so every declined order keeps "
        "its items reserved. The payment-failure path does release it. Adding the same release to the declined path (new "
        "activity call only inside the version-1 branch, so old histories are unaffected):"
    )
    s.edit("workflows/order.go", '''\t\tif !fraud.Approved {
\t\t\treturn workflow.ExecuteActivity(ctx, a.MarkOrderDeclined, in.OrderID, fraud.Reason).Get(ctx, nil)
\t\t}''', '''\t\tif !fraud.Approved {
\t\t\t_ = workflow.ExecuteActivity(ctx, a.ReleaseStock, resID).Get(ctx, nil)
\t\t\treturn workflow.ExecuteActivity(ctx, a.MarkOrderDeclined, in.OrderID, fraud.Reason).Get(ctx, nil)
\t\t}''')
    s.bash("go test ./... && workflowcheck ./workflows/...", '''?   \tgithub.com/kestrel-shop/orders/cmd/worker\t[no test files]
ok  \tgithub.com/kestrel-shop/orders/activities\t0.041s
ok  \tgithub.com/kestrel-shop/orders/internal/config\t0.006s
ok  \tgithub.com/kestrel-shop/orders/workflows\t0.244s''', desc="All tests + workflowcheck", secs=16)
    s.say(
        "All green, and `workflowcheck` (the SDK's static determinism checker) finds nothing in the workflow package.\n\n"
        "About the ~300 stuck executions: their workflow tasks are retrying. Once this worker is deployed, the next retry replays "
        "them against the `DefaultVersion` path and they continue on their own. I could also reset them to the last good task "
        "so they don't wait for the retry backoff:"
    )
    s.bash_rejected("temporal workflow reset --env prod --query 'WorkflowType=\"OrderWorkflow\" AND ExecutionStatus=\"Running\"' --type LastWorkflowTask --reason 'TMPRL1100 after 2.14.0'",
                    desc="Batch reset stuck order workflows in prod",
                    reason="no resets on order workflows in prod, ever. a reset can re-run ChargePayment and we charged people twice in june doing exactly that. they'll recover by themselves after the deploy, retries are capped at 10 min")
    s.say("Understood — no reset. They'll pick up on the next workflow task retry after the deploy.")
    s.bash("git add -A && git commit -qm 'order workflow: GetVersion around fraud check (TMPRL1100 on pre-2.14 runs); release stock on decline' && git log --oneline -1",
           "c5a0e77 order workflow: GetVersion around fraud check (TMPRL1100 on pre-2.14 runs); release stock on decline", desc="Commit")
    s.say(
        "Done on `hotfix/order-nondeterminism`:\n\n"
        "- **Cause:** 2.14.0 inserted `CheckFraud` before `ChargePayment`; executions started earlier replay a history where "
        "`ChargePayment` comes second → TMPRL1100 on every workflow task.\n"
        "- **Fix:** `workflow.GetVersion(ctx, \"fraud-check\", DefaultVersion, 1)` around the fraud check. Chosen over Worker "
        "Versioning because build-ID versioning is experimental on 1.22 and infra won't enable the flags. A second task queue "
        "was tried and dropped (starter lives in checkout-api, two fleets).\n"
        "- **Second bug:** a declined order never released its stock reservation; fixed in the version-1 branch, covered by "
        "`TestOrderWorkflow_FraudDeclined`.\n"
        "- `go test ./... && workflowcheck ./workflows/...` green; the replay test covers two pre-2.14 histories.\n\n"
        "Not done: the deploy, and I didn't check why CI didn't catch this — the replay test exists, so either CI doesn't run "
        "the `workflows` package or the fixtures were added after the pipeline was set up. Worth a look."
    )
    s.turn_end()
    s.user(
        "ok ill deploy after standup. the DefaultVersion branch can go once all pre 2.14 orders are closed, thats 30 days max with our timeouts, "
        "remind me... well, I'll put it in the tracker. dunno if returns-service also starts OrderWorkflow directly, gonna ask Mei",
        wait=95,
    )
    s.say("Makes sense. Until then keep both replay fixtures in `testdata/` so the old path stays covered.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Temporal Go SDK worker on a self-hosted 1.22 cluster, English, terse user pasting a TMPRL1100 error",
        "a rule in the first prompt (don't touch ChargePayment or its activity options, payments team's idempotency key)",
        "replay test reproducing prod, error in the middle of a long panic output",
        "a second task queue (orders-v2) tried in an edit and refused by the user with reasons, reverted",
        "decision GetVersion vs Worker Versioning (experimental on 1.22, infra won't flip flags); compaction after it",
        "a new unit test finding a second bug (declined orders keep the stock reservation)",
        "batch `temporal workflow reset` in prod rejected with a story (double charge in June)",
        "todo (remove DefaultVersion branch after 30 days) and a question for a colleague in the last message; unchecked CI gap in the wrap-up",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["CheckFraud", "fraud check"], ["TMPRL1100", "nondeterminis"]],
         "note": "2.14.0 inserted CheckFraud before ChargePayment; workflows started earlier fail replay with TMPRL1100 (nondeterministic workflow)."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["ChargePayment"], ["payments team", "idempotency", "activity options"]],
         "note": "Don't touch ChargePayment or its activity options: the payments team owns them and their idempotency key is built from them."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision"],
         "match": [["orders-v2", "task queue"], ["checkout-api", "two queues", "two worker"]],
         "note": "Routing new workflows to a second task queue orders-v2 was refused: the starter lives in checkout-api (other repo and deploy) and ops would babysit two queues and a frozen workflow copy."},
        {"id": "d1", "type": "decision",
         "match": [["GetVersion"], ["experimental", "flags", "1.22"]],
         "note": "Fix with workflow.GetVersion(\"fraud-check\", DefaultVersion, 1) rather than Worker Versioning: build IDs are experimental on 1.22 and infra won't enable the flags on prod."},
        {"id": "b2", "type": "bug_note",
         "match": [["ReleaseStock", "reservation"], ["declin"]],
         "note": "A fraud-declined order returned without releasing its stock reservation; ReleaseStock added in the version-1 branch."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["reset"], ["twice", "ChargePayment", "june"]],
         "note": "Never reset order workflows in prod: a reset can re-run ChargePayment (customers were charged twice in June); stuck runs recover after the deploy."},
        {"id": "t1", "type": "todo",
         "match": [["DefaultVersion"], ["30 days", "pre 2.14", "closed"]],
         "note": "Remove the DefaultVersion branch once all pre-2.14 orders are closed (30 days max); Dani puts it in the tracker."},
        {"id": "q1", "type": "open_question",
         "match": [["returns-service"], ["Mei"]],
         "note": "Does returns-service also start OrderWorkflow directly? Dani asks Mei."},
        {"id": "q2", "type": "open_question", "required": False,
         "match": [["CI"], ["replay test", "workflows package", "catch"]],
         "note": "Unchecked: why CI didn't catch it although the replay test exists."},
        {"id": "v1", "type": "verified_command", "command": "go test ./workflows/ -run TestReplay -v"},
        {"id": "v2", "type": "verified_command", "command": "go test ./... && workflowcheck ./workflows/..."},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["doesn't want to proceed"]],
}
