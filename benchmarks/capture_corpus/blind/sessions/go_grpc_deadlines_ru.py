# ruff: noqa: E501  (verbatim command output and file contents)
"""Go gRPC: calls without deadlines hang for 30 s; degraded response; a proto rename refused by buf breaking (Russian)."""

from make_sessions import Session

HANDLER = '''package inventory

import (
	"context"

	inventoryv1 "github.com/skladno/platform/gen/inventory/v1"
	pricingv1 "github.com/skladno/platform/gen/pricing/v1"
)

type Server struct {
	inventoryv1.UnimplementedInventoryServiceServer
	store   Store
	pricing pricingv1.PricingServiceClient
}

func (s *Server) GetItem(ctx context.Context, req *inventoryv1.GetItemRequest) (*inventoryv1.GetItemResponse, error) {
	item, err := s.store.Item(ctx, req.GetSku())
	if err != nil {
		return nil, toStatus(err)
	}
	price, err := s.pricing.GetPrice(context.Background(), &pricingv1.GetPriceRequest{Sku: item.Sku})
	if err != nil {
		return nil, err
	}
	return &inventoryv1.GetItemResponse{Item: toProto(item, price.GetPriceCents())}, nil
}
'''

PROTO = '''syntax = "proto3";

package inventory.v1;

message Item {
  string sku = 1;
  string title = 2;
  int64 price = 3; // в копейках
  int32 stock = 4;
}

message GetItemRequest {
  string sku = 1;
}

message GetItemResponse {
  Item item = 1;
}
'''

GREP_BG = '''internal/inventory/server.go:22:	price, err := s.pricing.GetPrice(context.Background(), &pricingv1.GetPriceRequest{Sku: item.Sku})
internal/inventory/list.go:41:		prices, err := s.pricing.BatchGetPrices(context.Background(), &pricingv1.BatchGetPricesRequest{Skus: skus})
internal/reservation/server.go:57:	if _, err := s.inventory.Reserve(context.Background(), r); err != nil {'''


def build() -> Session:
    s = Session("go-grpc-deadlines-ru", cwd="/home/artem/go/src/github.com/skladno/platform", branch="fix/pricing-deadlines",
                start="2026-02-12T07:55:48.119Z", version="2.1.43", slug="deadline-bound-lynx")
    s.user(
        "Привет. Когда pricing тормозит, карточка товара в inventory висит по 30 секунд, пока "
        "балансировщик не оборвёт запрос. Нужно, чтобы inventory не ждал pricing бесконечно.\n\n"
        "У нас в хендлерах нельзя использовать context.Background(), это правило из ревью, "
        "дедлайн клиента должен доходить до самого низа. И proto трогаем только так, чтобы "
        "проходил buf breaking против main — мобильные клиенты генерят код из тех же proto.",
        wait=6,
    )
    s.grep("context.Background\\(\\)", content=GREP_BG, path="internal")
    s.call(s.read_call("internal/inventory/server.go", HANDLER))
    s.bash("grep -A3 'pricing' deploy/slo.yaml", '''pricing:
  GetPrice: { p50_ms: 18, p99_ms: 120 }
inventory:
  GetItem: { budget_ms: 500 }''', desc="SLO сервисов")
    s.todo([
        ("Прокинуть ctx вместо context.Background() в вызовы pricing", "in_progress", "Прокидываю ctx в вызовы pricing"),
        ("Таймаут на вызов pricing", "pending", "Ставлю таймаут на pricing"),
        ("Что отдавать, если pricing не ответил", "pending", "Решаю, что отдавать без цены"),
        ("reservation: тот же context.Background()", "pending", "Правлю reservation"),
    ])
    s.say(
        "Три вызова с `context.Background()`: два в inventory (GetPrice и BatchGetPrices) и один в "
        "reservation. Из-за них дедлайн входящего запроса обрывается на границе сервиса: вызов в "
        "pricing вообще без дедлайна, и inventory ждёт, пока не сработает таймаут балансировщика.\n\n"
        "Таймаут на pricing ставлю 300 мс: p99 у GetPrice 120 мс, а весь бюджет GetItem — 500 мс, "
        "нужен запас на поход в базу. `context.WithTimeout` от входящего ctx, так что если у клиента "
        "дедлайн короче, сработает он."
    )
    s.edit("internal/inventory/server.go", '''	price, err := s.pricing.GetPrice(context.Background(), &pricingv1.GetPriceRequest{Sku: item.Sku})''', '''	pctx, cancel := context.WithTimeout(ctx, pricingTimeout)
	defer cancel()
	price, err := s.pricing.GetPrice(pctx, &pricingv1.GetPriceRequest{Sku: item.Sku})''')
    s.edit("internal/inventory/server.go", '''type Server struct {''', '''// pricingTimeout: p99 GetPrice 120 мс, бюджет GetItem 500 мс (deploy/slo.yaml).
const pricingTimeout = 300 * time.Millisecond

type Server struct {''')
    s.edit("internal/inventory/server.go", '''import (
	"context"
''', '''import (
	"context"
	"time"
''')
    s.call(s.read_call("internal/inventory/list.go", '''		prices, err := s.pricing.BatchGetPrices(context.Background(), &pricingv1.BatchGetPricesRequest{Skus: skus})'''))
    s.edit("internal/inventory/list.go", '''		prices, err := s.pricing.BatchGetPrices(context.Background(), &pricingv1.BatchGetPricesRequest{Skus: skus})''', '''		pctx, cancel := context.WithTimeout(ctx, pricingTimeout)
		prices, err := s.pricing.BatchGetPrices(pctx, &pricingv1.BatchGetPricesRequest{Skus: skus})
		cancel()''')
    s.call(s.read_call("internal/reservation/server.go", '''	if _, err := s.inventory.Reserve(context.Background(), r); err != nil {'''))
    s.edit("internal/reservation/server.go", '''	if _, err := s.inventory.Reserve(context.Background(), r); err != nil {''', '''	if _, err := s.inventory.Reserve(ctx, r); err != nil {''')
    s.todo([
        ("Прокинуть ctx вместо context.Background() в вызовы pricing", "completed", "Прокидываю ctx в вызовы pricing"),
        ("Таймаут на вызов pricing", "completed", "Ставлю таймаут на pricing"),
        ("Что отдавать, если pricing не ответил", "in_progress", "Решаю, что отдавать без цены"),
        ("reservation: тот же context.Background()", "completed", "Правлю reservation"),
    ])
    s.bash("go test ./internal/... 2>&1 | tail -8", '''--- FAIL: TestGetItem_PricingSlow (0.30s)
    server_test.go:88: GetItem() error = rpc error: code = DeadlineExceeded desc = context deadline exceeded, want item without price
FAIL
FAIL	github.com/skladno/platform/internal/inventory	0.412s
ok  	github.com/skladno/platform/internal/reservation	0.087s
ok  	github.com/skladno/platform/internal/store	1.204s
FAIL''', desc="Тесты", secs=20)
    s.call(s.read_call("internal/inventory/server_test.go", '''func TestGetItem_PricingSlow(t *testing.T) {
	srv := newTestServer(t, withPricingDelay(2*time.Second))
	resp, err := srv.GetItem(context.Background(), &inventoryv1.GetItemRequest{Sku: "SKU-1"})
	if err != nil {
		t.Fatalf("GetItem() error = %v, want item without price", err)
	}
	if resp.GetItem().GetPrice() != 0 {
		t.Fatalf("price = %d, want 0", resp.GetItem().GetPrice())
	}
}'''))
    s.say(
        "Тест `TestGetItem_PricingSlow` уже был (до этого он падал бы через 2 секунды тем же "
        "способом) и ожидает, что при медленном pricing карточка отдаётся без цены, а не ошибкой. "
        "Это разумно: карточка с остатками важнее, чем цена, и фронт умеет показать «цена "
        "уточняется». Но «цена 0» неотличима от бесплатного товара, поэтому нужен явный признак. "
        "Заодно переименую `price` в `price_cents`, чтобы было видно единицы:"
    )
    s.call(s.read_call("proto/inventory/v1/inventory.proto", PROTO))
    s.edit("proto/inventory/v1/inventory.proto", '''  int64 price = 3; // в копейках
  int32 stock = 4;
}''', '''  int64 price_cents = 3;
  int32 stock = 4;
  PriceStatus price_status = 5;
}

enum PriceStatus {
  PRICE_STATUS_UNSPECIFIED = 0;
  PRICE_STATUS_OK = 1;
  PRICE_STATUS_UNAVAILABLE = 2;
}''')
    s.bash("buf lint && buf breaking --against '.git#branch=main' 2>&1 | tail -3", '''proto/inventory/v1/inventory.proto:8:3:Field "3" with name "price_cents" on message "Item" changed option "json_name" from "price" to "priceCents".
proto/inventory/v1/inventory.proto:8:9:Field "3" on message "Item" changed name from "price" to "price_cents".''', desc="buf lint и breaking", secs=6)
    s.say(
        "buf breaking против переименования: для мобильных клиентов это другое имя поля в "
        "сгенерированном коде и другой ключ в JSON. Переименование откатываю — `price` остаётся "
        "как есть, добавляю только `price_status` (новое поле с новым номером — совместимо)."
    )
    s.edit("proto/inventory/v1/inventory.proto", '''  int64 price_cents = 3;''', '''  int64 price = 3; // в копейках; смотреть вместе с price_status''')
    s.bash("buf lint && buf breaking --against '.git#branch=main'", "", desc="buf lint и breaking", secs=6)
    s.bash("buf generate", "", desc="Генерация кода", secs=4)
    s.edit("internal/inventory/server.go", '''	price, err := s.pricing.GetPrice(pctx, &pricingv1.GetPriceRequest{Sku: item.Sku})
	if err != nil {
		return nil, err
	}
	return &inventoryv1.GetItemResponse{Item: toProto(item, price.GetPriceCents())}, nil''', '''	price, err := s.pricing.GetPrice(pctx, &pricingv1.GetPriceRequest{Sku: item.Sku})
	if err != nil {
		// Без цены лучше, чем без карточки: цена помечается как недоступная.
		if c := status.Code(err); c == codes.DeadlineExceeded || c == codes.Unavailable {
			return &inventoryv1.GetItemResponse{Item: toProtoWithoutPrice(item)}, nil
		}
		return nil, err
	}
	return &inventoryv1.GetItemResponse{Item: toProto(item, price.GetPriceCents())}, nil''')
    s.edit("internal/inventory/server.go", '''	"time"
''', '''	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
''')
    s.bash("go test -race ./... 2>&1 | tail -6", '''ok  	github.com/skladno/platform/internal/inventory	1.318s
ok  	github.com/skladno/platform/internal/reservation	1.102s
ok  	github.com/skladno/platform/internal/store	2.771s
ok  	github.com/skladno/platform/pkg/grpcx	1.009s''', desc="Тесты с -race", secs=60)
    s.bash("golangci-lint run ./... 2>&1 | tail -3", "", desc="Линтер", secs=35)
    s.todo([
        ("Прокинуть ctx вместо context.Background() в вызовы pricing", "completed", "Прокидываю ctx в вызовы pricing"),
        ("Таймаут на вызов pricing", "completed", "Ставлю таймаут на pricing"),
        ("Что отдавать, если pricing не ответил", "completed", "Решаю, что отдавать без цены"),
        ("reservation: тот же context.Background()", "completed", "Правлю reservation"),
    ])
    s.say(
        "Готово:\n\n"
        "- Вызовы pricing идут с входящим ctx и таймаутом 300 мс; `context.Background()` в "
        "inventory и reservation больше нет.\n"
        "- Если pricing не успел (DeadlineExceeded/Unavailable), GetItem отдаёт карточку без цены с "
        "`price_status = PRICE_STATUS_UNAVAILABLE` вместо ошибки.\n"
        "- proto: только новое поле `price_status` и enum; `buf breaking` против main чистый.\n"
        "- `go test -race ./...` и golangci-lint зелёные.\n\n"
        "Вопрос на будущее: стоит ли включить ретраи на UNAVAILABLE в service config клиента "
        "pricing? При тормозящем pricing ретраи умножают нагрузку именно тогда, когда ему и так плохо."
    )
    s.turn_end()
    s.user(
        "Ретраи обсудим на архитектурном ревью в четверг, пока не трогай. В orders, кстати, та же "
        "беда с context.Background(), но это другая команда — я им заведу тикет.",
        wait=150,
    )
    s.say("Понял, ретраи не трогаю.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Go gRPC services (buf, protobuf, golangci-lint), Russian",
        "two rules with reasons in the first prompt (no context.Background() in handlers; proto only if buf breaking passes: mobile clients)",
        "a decision with numbers from the repo (300 ms: p99 120 ms, budget 500 ms)",
        "a failing test behind `| tail` that encodes the expected behaviour (degraded response)",
        "a proto rename refused by buf breaking behind `| tail`, reverted",
        "TodoWrite list from start to finish",
        "an open question parked for a meeting and a todo the user takes to another team",
    ],
    "language": "ru",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["context.Background"], ["хендлер", "ревью", "до самого низа"]],
         "note": "В хендлерах нельзя context.Background(): дедлайн клиента должен доходить до самого низа (правило ревью)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["buf breaking"], ["мобильн"]],
         "note": "proto меняется только так, чтобы проходил buf breaking против main: мобильные клиенты генерят код из тех же proto."},
        {"id": "b1", "type": "bug_note",
         "match": [["context.Background"], ["30 секунд", "балансировщик", "без дедлайна"]],
         "note": "Карточка висела 30 секунд при тормозящем pricing: вызовы шли с context.Background(), без дедлайна, до таймаута балансировщика."},
        {"id": "d1", "type": "decision",
         "match": [["300 мс", "300 * time.Millisecond"], ["p99", "500 мс"]],
         "note": "Таймаут на pricing 300 мс от входящего ctx: p99 GetPrice 120 мс, бюджет GetItem 500 мс."},
        {"id": "d2", "type": "decision",
         "match": [["PRICE_STATUS_UNAVAILABLE", "price_status", "без цены"], ["DeadlineExceeded", "Unavailable", "карточк"]],
         "note": "Если pricing не ответил (DeadlineExceeded/Unavailable), GetItem отдаёт карточку без цены с price_status = PRICE_STATUS_UNAVAILABLE вместо ошибки."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["price_cents"], ["buf breaking", "changed name", "json"]],
         "note": "Переименование price в price_cents отвергнуто buf breaking (другое имя в сгенерированном коде и ключ JSON): откатано."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["ретра"], ["четверг", "ревью", "UNAVAILABLE"]],
         "note": "Включать ли ретраи на UNAVAILABLE для клиента pricing (умножают нагрузку)? Обсудить на архитектурном ревью в четверг."},
        {"id": "t1", "type": "todo",
         "match": [["orders"], ["тикет", "context.Background"]],
         "note": "В orders та же проблема с context.Background(): Артём заведёт тикет другой команде."},
        {"id": "v1", "type": "verified_command", "command": "go test -race ./..."},
        {"id": "v2", "type": "verified_command", "command": "buf lint && buf breaking --against '.git#branch=main'"},
        {"id": "v3", "type": "verified_command", "command": "golangci-lint run ./..."},
        {"id": "v4", "type": "verified_command", "required": False, "command": "buf generate"},
    ],
    "secrets": [],
    "forbidden": [["Todos have been modified successfully"]],
}
