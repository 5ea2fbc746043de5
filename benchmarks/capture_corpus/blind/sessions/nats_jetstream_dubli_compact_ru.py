# ruff: noqa: E501  (verbatim command output and file contents)
"""Go service on NATS JetStream sends duplicate invoice emails (AckWait 30 s < PDF render); AckWait 10m refused; InProgress heartbeat + dedupe; compaction; failure behind `| tail` (Russian)."""

from make_sessions import Session

CONSUMER_GO = '''package mailer

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/nats-io/nats.go"
)

type InvoiceReady struct {
	InvoiceID string `json:"invoice_id"`
	Email     string `json:"email"`
}

type Consumer struct {
	sub    *nats.Subscription
	render Renderer
	smtp   Sender
	log    *slog.Logger
}

func (c *Consumer) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		msgs, err := c.sub.Fetch(4, nats.Context(ctx))
		if err != nil {
			continue
		}
		for _, m := range msgs {
			c.handle(ctx, m)
		}
	}
	return ctx.Err()
}

func (c *Consumer) handle(ctx context.Context, m *nats.Msg) {
	var ev InvoiceReady
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		c.log.Error("bad payload", "err", err)
		_ = m.Term()
		return
	}
	pdf, err := c.render.InvoicePDF(ctx, ev.InvoiceID) // headless chromium, 5-90 s
	if err != nil {
		c.log.Error("render", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	if err := c.smtp.Send(ctx, ev.Email, ev.InvoiceID, pdf); err != nil {
		c.log.Error("send", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	_ = m.Ack()
}
'''

NATS_TF = '''resource "jetstream_stream" "invoices" {
  name     = "INVOICES"
  subjects = ["invoices.>"]
  storage  = "file"
  max_age  = 604800
}

resource "jetstream_consumer" "invoice_mailer" {
  stream_id      = jetstream_stream.invoices.id
  durable_name   = "invoice-mailer"
  filter_subject = "invoices.ready"
  ack_policy     = "explicit"
  ack_wait       = 30
  max_delivery   = 5
  # после 5 попыток -> advisory MAX_DELIVERIES -> dlq-forwarder + алерт InvoiceDLQ
}
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: Сервис invoice-mailer (Go 1.22, nats.go v1.31, pull-консьюмер JetStream `invoice-mailer` на стриме INVOICES) шлёт клиентам дубли писем со счетами, иногда по 3 штуки. Правила пользователя (Дмитрий): MaxDeliver не трогать — на нём висит алерт InvoiceDLQ; для юрлиц SLA отправки счёта 5 минут.
2. Key Technical Concepts: JetStream AckWait / redelivery, msg.InProgress() (продлевает AckWait), Nak/Term, max_delivery + advisory MAX_DELIVERIES, терраформ-провайдер nats (jetstream_consumer).
3. Files and Code Sections:
   - internal/mailer/consumer.go: handle() рендерит PDF через headless chromium (5–90 с), потом SMTP, потом Ack. AckWait 30 с, так что длинный рендер приводит к повторной доставке другому поду → второе письмо.
   - deploy/terraform/nats.tf: jetstream_consumer.invoice_mailer, ack_wait = 30, max_delivery = 5.
   - `nats consumer info` на стейджинге: Redelivered Messages 1,284, Ack Wait 30s.
4. Errors and fixes:
   - Пробовал поднять ack_wait до 600 в nats.tf. Дмитрий отказал: если под упадёт посреди рендера, письмо уйдёт только через 10 минут, а SLA для юрлиц 5 минут. Откатил (git checkout).
5. Pending Tasks: (1) в handle() тикер, вызывающий m.InProgress() каждые 10 с, пока идёт рендер и отправка, AckWait остаётся 30 с; (2) дедупликация: перед Send проверять таблицу sent_invoices (invoice_id), после успешной отправки записывать — на случай падения пода между Send и Ack. Дмитрий согласился с обоими.
6. Current Work: начинаю править internal/mailer/consumer.go.'''


def build() -> Session:
    s = Session("nats-jetstream-dubli-compact-ru", cwd="/home/dmitry/src/billing/invoice-mailer", branch="fix/duplicate-invoices",
                start="2026-04-16T10:03:27.119Z", version="2.1.29", slug="inprogress-ticker-dedupe")
    s.user(
        "клиентам приходят дубли писем со счетами, иногда по 3 штуки. сервис invoice-mailer, консьюмер на jetstream. посмотри почему. "
        "MaxDeliver не трогай, на нём алерт на DLQ висит",
        wait=5,
    )
    s.call(s.read_call("internal/mailer/consumer.go", CONSUMER_GO), s.read_call("deploy/terraform/nats.tf", NATS_TF))
    s.bash("nats --context staging consumer info INVOICES invoice-mailer", '''Information for Consumer INVOICES > invoice-mailer created 2026-01-20T09:12:44Z

Configuration:

                    Name: invoice-mailer
               Pull Mode: true
          Filter Subject: invoices.ready
          Deliver Policy: All
              Ack Policy: Explicit
                Ack Wait: 30.00s
           Replay Policy: Instant
      Maximum Deliveries: 5
         Max Waiting Pulls: 512

State:

  Last Delivered Message: Consumer sequence: 48,911 Stream sequence: 48,911
    Acknowledgment Floor: Consumer sequence: 48,907 Stream sequence: 48,907
        Outstanding Acks: 4 out of maximum 1,000
    Redelivered Messages: 1,284
    Unprocessed Messages: 0
           Waiting Pulls: 3 of maximum 512''', desc="Состояние консьюмера на стейджинге (только чтение)", secs=2)
    s.bash("kubectl -n billing-staging logs deploy/invoice-mailer --since=24h | grep -c 'render done' ; "
           "kubectl -n billing-staging logs deploy/invoice-mailer --since=24h | grep 'render done' | awk '{print $NF}' | sort -n | tail -3",
           '''3921
took=71.4s
took=84.9s
took=92.2s''', desc="Сколько длится рендер")
    s.say(
        "Причина понятна:\n\n"
        "- `ack_wait = 30` секунд, а рендер PDF через chromium для больших счетов идёт до 92 с.\n"
        "- Через 30 с без Ack JetStream считает сообщение потерянным и отдаёт его снова — другому поду (или этому же на "
        "следующем Fetch). Тот тоже рендерит и отправляет → второе письмо, а при рендере > 60 с и третье.\n"
        "- На стейджинге 1 284 повторных доставки — это они.\n\n"
        "Самое прямое — поднять `ack_wait` с запасом, до 10 минут:"
    )
    s.edit("deploy/terraform/nats.tf", '''  ack_wait       = 30''', '''  ack_wait       = 600 # рендер больших счетов до ~90 с''')
    s.say("Так повторная доставка будет только если под реально умер. Применять через ваш терраформ-пайплайн, как обычно?")
    s.turn_end()
    s.user(
        "не, 10 минут плохо. если под упадёт посреди рендера, письмо уйдёт только через 10 минут, а для юрлиц у нас SLA 5 минут на отправку счёта. "
        "должно быть и быстро при падении, и без дублей",
        wait=55,
    )
    s.bash("git checkout -- deploy/terraform/nats.tf && git status --short", "", desc="Откатить ack_wait")
    s.say(
        "Откатил. Тогда так:\n\n"
        "1. **AckWait остаётся 30 с**, а пока рендер/отправка идут, обработчик каждые 10 с вызывает `m.InProgress()` — это "
        "продлевает AckWait для этого сообщения. Живой под держит сообщение сколько нужно; упавший перестаёт слать "
        "InProgress, и через ≤30 с сообщение уходит другому поду.\n"
        "2. **Дедупликация** на остаток: под может упасть *после* Send, но *до* Ack — тогда повторная доставка неизбежна. "
        "Перед отправкой проверяем `sent_invoices` по `invoice_id`, после отправки пишем туда.\n\n"
        "MaxDeliver не трогаю."
    )
    s.turn_end()
    s.user("да, делай так", wait=20)
    s.compact(SUMMARY, pre_tokens=148902)
    s.say("Продолжаю: тикер с `InProgress()` и проверка `sent_invoices` в `handle()`.")
    s.read("internal/mailer/consumer.go", CONSUMER_GO)
    s.edit("internal/mailer/consumer.go", '''	pdf, err := c.render.InvoicePDF(ctx, ev.InvoiceID) // headless chromium, 5-90 s''', '''	sent, err := c.store.WasSent(ctx, ev.InvoiceID)
	if err != nil {
		c.log.Error("dedupe lookup", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	if sent { // повторная доставка после падения между Send и Ack
		_ = m.Ack()
		return
	}

	// AckWait 30 с, рендер до ~90 с: продлеваем, пока работаем. Упавший под перестаёт
	// продлевать, и сообщение через <=30 с уходит другому (SLA юрлиц 5 мин).
	go func() {
		t := time.NewTicker(c.heartbeat) // 10 с в проде
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := m.InProgress(); err != nil {
					c.log.Error("in progress", "invoice", ev.InvoiceID, "err", err)
				}
			}
		}
	}()

	pdf, err := c.render.InvoicePDF(ctx, ev.InvoiceID) // headless chromium, 5-90 s''')
    s.edit("internal/mailer/consumer.go", '''	if err := c.smtp.Send(ctx, ev.Email, ev.InvoiceID, pdf); err != nil {
		c.log.Error("send", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	_ = m.Ack()''', '''	if err := c.smtp.Send(ctx, ev.Email, ev.InvoiceID, pdf); err != nil {
		c.log.Error("send", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	if err := c.store.MarkSent(ctx, ev.InvoiceID); err != nil {
		c.log.Error("mark sent", "invoice", ev.InvoiceID, "err", err)
	}
	_ = m.Ack()''')
    s.edit("internal/mailer/consumer.go", '''	"log/slog"
''', '''	"log/slog"
	"time"
''')
    s.edit("internal/mailer/consumer.go", '''	smtp   Sender
''', '''	smtp   Sender
	store  SentStore

	heartbeat time.Duration // как часто продлевать AckWait (10 с в проде)
''')
    s.write("internal/mailer/consumer_slow_test.go", '''package mailer

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/test"
)

// Рендер дольше AckWait: письмо должно уйти ровно один раз, без ошибок InProgress.
func TestSlowRenderIsSentOnce(t *testing.T) {
	srv := test.RunRandClientPortServer()
	defer srv.Shutdown()
	js, sub := setupStream(t, srv.ClientURL(), 2*time.Second) // AckWait 2 s
	logs := &captureLog{}
	c := newTestConsumer(sub, slowRenderer{d: 3 * time.Second}, logs)
	c.heartbeat = 500 * time.Millisecond

	publishInvoice(t, js, "INV-2026-0416")
	runFor(c, 5*time.Second)

	if got := c.smtp.(*fakeSender).count("INV-2026-0416"); got != 1 {
		t.Fatalf("sent %d times, want 1", got)
	}
	for _, e := range logs.errors() {
		t.Errorf("unexpected error log: %s", e)
	}
}
''')
    s.bash("go test ./... 2>&1 | tail -3", '''ok  	git.corp.local/billing/invoice-mailer/internal/config	0.004s
FAIL	git.corp.local/billing/invoice-mailer/internal/mailer	5.218s
FAIL''', desc="Все тесты", secs=30)
    s.say("В хвосте видно только, что `internal/mailer` упал. Запускаю пакет целиком, чтобы увидеть саму ошибку:")
    s.bash("go test ./internal/mailer/ -run TestSlowRenderIsSentOnce -v", '''=== RUN   TestSlowRenderIsSentOnce
time=2026-04-16T11:19:02.114+03:00 level=INFO msg="render start" invoice=INV-2026-0416
time=2026-04-16T11:19:05.116+03:00 level=INFO msg="render done" invoice=INV-2026-0416 took=3.0s
time=2026-04-16T11:19:05.121+03:00 level=INFO msg="sent" invoice=INV-2026-0416
time=2026-04-16T11:19:05.614+03:00 level=ERROR msg="in progress" invoice=INV-2026-0416 err="nats: message was already acknowledged"
time=2026-04-16T11:19:06.114+03:00 level=ERROR msg="in progress" invoice=INV-2026-0416 err="nats: message was already acknowledged"
time=2026-04-16T11:19:06.614+03:00 level=ERROR msg="in progress" invoice=INV-2026-0416 err="nats: message was already acknowledged"
    consumer_slow_test.go:26: unexpected error log: in progress invoice=INV-2026-0416 err="nats: message was already acknowledged"
    consumer_slow_test.go:26: unexpected error log: in progress invoice=INV-2026-0416 err="nats: message was already acknowledged"
    consumer_slow_test.go:26: unexpected error log: in progress invoice=INV-2026-0416 err="nats: message was already acknowledged"
--- FAIL: TestSlowRenderIsSentOnce (5.01s)
FAIL
exit status 1
FAIL	git.corp.local/billing/invoice-mailer/internal/mailer	5.218s''', code=1, desc="Только новый тест, подробно", secs=16)
    s.say(
        "Дубля нет (sent ровно 1 раз), но мой тикер — баг: горутина живёт до отмены `ctx` всего консьюмера, то есть после Ack "
        "продолжает слать `InProgress()` (в тесте каждые 500 мс, в проде каждые 10 с) — `message was already acknowledged`, и так для каждого сообщения: утечка "
        "горутин на всё время жизни пода. Нужен свой контекст на одно сообщение, который отменяется до Ack/Nak:"
    )
    s.edit("internal/mailer/consumer.go", '''	go func() {
		t := time.NewTicker(c.heartbeat) // 10 с в проде
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():''', '''	hbCtx, stopHeartbeat := context.WithCancel(ctx)
	defer stopHeartbeat()
	done := make(chan struct{})
	finish := func(ack func(...nats.AckOpt) error) {
		stopHeartbeat()
		<-done // тикер точно остановлен до Ack/Nak (defer сработал бы уже после Ack)
		_ = ack()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(c.heartbeat) // 10 с в проде
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():''')
    s.edit("internal/mailer/consumer.go", '''	pdf, err := c.render.InvoicePDF(ctx, ev.InvoiceID) // headless chromium, 5-90 s
	if err != nil {
		c.log.Error("render", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	if err := c.smtp.Send(ctx, ev.Email, ev.InvoiceID, pdf); err != nil {
		c.log.Error("send", "invoice", ev.InvoiceID, "err", err)
		_ = m.Nak()
		return
	}
	if err := c.store.MarkSent(ctx, ev.InvoiceID); err != nil {
		c.log.Error("mark sent", "invoice", ev.InvoiceID, "err", err)
	}
	_ = m.Ack()''', '''	pdf, err := c.render.InvoicePDF(ctx, ev.InvoiceID) // headless chromium, 5-90 s
	if err != nil {
		c.log.Error("render", "invoice", ev.InvoiceID, "err", err)
		finish(m.Nak)
		return
	}
	if err := c.smtp.Send(ctx, ev.Email, ev.InvoiceID, pdf); err != nil {
		c.log.Error("send", "invoice", ev.InvoiceID, "err", err)
		finish(m.Nak)
		return
	}
	if err := c.store.MarkSent(ctx, ev.InvoiceID); err != nil {
		c.log.Error("mark sent", "invoice", ev.InvoiceID, "err", err)
	}
	finish(m.Ack)''')
    s.bash("go test -race ./internal/... && go vet ./...", '''ok  	git.corp.local/billing/invoice-mailer/internal/config	1.017s
ok  	git.corp.local/billing/invoice-mailer/internal/mailer	6.902s
ok  	git.corp.local/billing/invoice-mailer/internal/store	2.331s''', desc="Тесты с race detector + vet", secs=45)
    s.say(
        "Зелёное, и под `-race` тоже. В nats.go 1.31 это всё приходится делать руками; в новом API `jetstream` (nats.go ≥ 1.33) "
        "есть готовое. Обновлю зависимость, чтобы упростить:"
    )
    s.bash_rejected("go get github.com/nats-io/nats.go@v1.37.0", desc="Обновить nats.go",
                    reason="не трогай nats.go в этом PR. на 1.31 завязан весь монорепо биллинга, обновление только отдельным PR через платформенную команду")
    s.say("Понял, остаёмся на 1.31, ручной тикер остаётся.")
    s.bash("git add -A && git commit -qm 'mailer: InProgress каждые 10с во время рендера, дедуп по sent_invoices' && git log --oneline -1",
           "e0c71a4 mailer: InProgress каждые 10с во время рендера, дедуп по sent_invoices", desc="Коммит")
    s.say(
        "Итог:\n\n"
        "- **Причина дублей:** AckWait 30 с, а рендер PDF до ~90 с → JetStream повторно доставляет сообщение, второй под тоже "
        "отправляет письмо.\n"
        "- **Отклонено:** ack_wait 600 — при падении пода письмо ждало бы 10 минут (SLA юрлиц 5 минут).\n"
        "- **Сделано:** во время обработки `m.InProgress()` каждые 10 с (AckWait остаётся 30 с, упавший под отдаёт сообщение "
        "быстро) + проверка/запись `sent_invoices` по `invoice_id` на случай падения между Send и Ack.\n"
        "- **Свой баг по дороге:** тикер жил после Ack (`message was already acknowledged`, утечка горутин) — теперь "
        "останавливается до Ack/Nak.\n"
        "- `go test -race ./internal/... && go vet ./...` зелёные. MaxDeliver и nats.go не трогал.\n\n"
        "Не сделано: миграция для таблицы `sent_invoices` в этом репо уже есть? Я использовал `store.SentStore`, но схему не "
        "проверял на стейджинге."
    )
    s.turn_end()
    s.user(
        "таблица есть, Лена делала в прошлом месяце. завтра гляну в метабейзе скольким клиентам ушли дубли, надо им написать с извинениями. "
        "и почему рендер иногда 90 секунд — непонятно, спрошу у Артёма, может шаблон с картинками",
        wait=80,
    )
    s.say("Хорошо. Для Артёма: самые долгие рендеры в логах стейджинга — 84.9 и 92.2 с, по ним можно найти счета.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Go service (nats.go 1.31) consuming NATS JetStream, consumer in Terraform, Russian",
        "a rule in the first prompt (don't touch MaxDeliver, the DLQ alert depends on it)",
        "cause: AckWait 30 s vs PDF render up to 92 s (redelivery → duplicate emails), found from consumer info and logs",
        "ack_wait 600 tried in nats.tf and refused by the user (SLA 5 minutes for legal entities when a pod dies), reverted",
        "decision InProgress heartbeat + dedupe table with its why; compaction after the user's go-ahead",
        "a failure behind `| tail -3` (only FAIL lines), the real error in a verbose run; a self-inflicted ticker bug fixed",
        "`go get nats.go@v1.37.0` rejected with a rule (monorepo pinned to 1.31, platform team upgrades)",
        "todo (count affected customers tomorrow, apologise) and a question for a colleague (Artyom) in the last message",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["MaxDeliver", "max_delivery"], ["DLQ"]],
         "note": "MaxDeliver не трогать: на нём висит алерт на DLQ."},
        {"id": "b1", "type": "bug_note",
         "match": [["AckWait", "ack_wait"], ["рендер", "PDF"], ["дубл", "повторн"]],
         "note": "Дубли писем: AckWait 30 с, а рендер PDF до ~90 с, JetStream повторно доставляет сообщение, другой под тоже отправляет письмо."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint"],
         "match": [["600", "10 минут"], ["SLA"]],
         "note": "ack_wait 600 отклонён: при падении пода письмо ушло бы через 10 минут, а SLA для юрлиц 5 минут."},
        {"id": "d1", "type": "decision",
         "match": [["InProgress"], ["sent_invoices", "дедуп"], ["упавший", "падени", "30 с"]],
         "note": "AckWait остаётся 30 с, во время обработки m.InProgress() каждые 10 с + дедупликация по sent_invoices: живой под держит сообщение, упавший быстро его отдаёт."},
        {"id": "b2", "type": "bug_note",
         "match": [["already acknowledged"], ["тикер", "горутин"]],
         "note": "Тикер InProgress жил после Ack (nats: message was already acknowledged, утечка горутин); теперь останавливается до Ack/Nak."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["nats.go"], ["1.31"], ["монорепо", "отдельным PR", "платформенн"]],
         "note": "nats.go не обновлять в обычных PR: весь монорепо биллинга на 1.31, обновление отдельным PR через платформенную команду."},
        {"id": "t1", "type": "todo",
         "match": [["метабейз"], ["дубли", "извинени"]],
         "note": "Дмитрий завтра смотрит в Metabase, скольким клиентам ушли дубли, и пишет им с извинениями."},
        {"id": "q1", "type": "open_question",
         "match": [["90 секунд", "рендер"], ["Артём"]],
         "note": "Почему рендер иногда идёт 90 секунд (может, шаблон с картинками)? Спросить у Артёма."},
        {"id": "v1", "type": "verified_command", "command": "go test -race ./internal/... && go vet ./..."},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["doesn't want to proceed"]],
}
