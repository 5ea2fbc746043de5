# ruff: noqa: E501  (verbatim command output and file contents)
"""Go API gateway: per-tenant rate limit, standard library only (German session)."""

from make_sessions import Session

ROUTER = '''package server

import (
	"net/http"

	"gitlab.intern/plattform/gateway/internal/middleware"
	"gitlab.intern/plattform/gateway/internal/proxy"
)

func NewRouter(cfg Config) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/", proxy.New(cfg.Upstream))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})

	var h http.Handler = mux
	h = middleware.Tenant(h)
	h = middleware.RequestID(h)
	h = middleware.AccessLog(h)
	return h
}
'''

TENANT = '''package middleware

import (
	"context"
	"net/http"
)

type tenantKey struct{}

// Tenant rejects requests without X-Tenant-ID and stores the id in the context.
func Tenant(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Tenant-ID")
		if id == "" {
			http.Error(w, "missing X-Tenant-ID", http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, id)))
	})
}

func TenantFrom(ctx context.Context) string {
	id, _ := ctx.Value(tenantKey{}).(string)
	return id
}
'''

LIMITER_V1 = '''package ratelimit

import (
	"sync"
	"time"
)

// Limiter is a token bucket per key. Buckets refill lazily on access.
type Limiter struct {
	rate    float64 // tokens per second
	burst   float64
	now     func() time.Time
	buckets sync.Map // key -> *bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func New(perMinute, burst int) *Limiter {
	return &Limiter{rate: float64(perMinute) / 60, burst: float64(burst), now: time.Now}
}

// Allow takes one token for key and reports whether it was available,
// plus how long until the next token if not.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	now := l.now()
	v, _ := l.buckets.LoadOrStore(key, &bucket{tokens: l.burst, last: now})
	b := v.(*bucket)
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
}
'''

LIMITER_TEST = '''package ratelimit

import (
	"sync"
	"testing"
	"time"
)

func TestBurstThenRefill(t *testing.T) {
	clock := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	l := New(60, 3)
	l.now = func() time.Time { return clock }

	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("acme"); !ok {
			t.Fatalf("request %d within burst was rejected", i)
		}
	}
	ok, wait := l.Allow("acme")
	if ok || wait != time.Second {
		t.Fatalf("4th request: ok=%v wait=%v, want rejected with 1s", ok, wait)
	}
	clock = clock.Add(time.Second)
	if ok, _ := l.Allow("acme"); !ok {
		t.Fatal("token did not refill after 1s")
	}
}

func TestTenantsAreIndependent(t *testing.T) {
	l := New(60, 1)
	l.Allow("acme")
	if ok, _ := l.Allow("globex"); !ok {
		t.Fatal("globex was limited by acme's traffic")
	}
}

func TestConcurrentAllow(t *testing.T) {
	l := New(6000, 100)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _ := l.Allow("acme"); ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed < 100 || allowed > 102 {
		t.Fatalf("allowed %d of 200 concurrent requests, want about the burst of 100", allowed)
	}
}
'''

MIDDLEWARE = '''package middleware

import (
	"math"
	"net/http"
	"strconv"

	"gitlab.intern/plattform/gateway/internal/ratelimit"
)

// RateLimit answers 429 with Retry-After (whole seconds, rounded up) once a
// tenant has used its budget. It must run after Tenant.
func RateLimit(l *ratelimit.Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := l.Allow(TenantFrom(r.Context()))
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}
'''


def build() -> Session:
    s = Session("go-ratelimit-de", cwd="/home/jonas/code/gateway", branch="feature/ratelimit-pro-mandant",
                start="2026-03-02T08:17:05.870Z", version="2.1.45", slug="steady-humming-kettle")
    s.user(
        "Moin! Wir brauchen im Gateway ein Rate-Limit pro Mandant (Header X-Tenant-ID): 100 "
        "Requests pro Minute, Burst 20. Wichtig: dafür keine externen Abhängigkeiten, nur die "
        "Standardbibliothek. Auch golang.org/x/time/rate ist tabu, das Security-Team will jedes "
        "neue Modul erst reviewen und das dauert Wochen.\n\nWenn das Limit greift, bitte 429 mit "
        "Retry-After-Header zurückgeben – darauf verlassen sich die Kunden-SDKs beim Backoff.",
        wait=3,
    )
    s.think("Look at the router and the tenant middleware to see where the id comes from.")
    s.call(s.read_call("internal/server/router.go", ROUTER),
           s.read_call("internal/middleware/tenant.go", TENANT))
    s.say(
        "Die Mandanten-ID liegt nach `middleware.Tenant` im Context, das Limit kann also direkt "
        "dahinter hängen.\n\nZum Aufbau: ein Token-Bucket pro Mandant. Einen Ticker pro Mandant, "
        "der regelmäßig Tokens nachfüllt, will ich nicht – bei ein paar tausend Mandanten wären "
        "das ein paar tausend Goroutinen, die meistens nichts tun. Die Auffüllung rechne ich "
        "stattdessen beim Zugriff aus der vergangenen Zeit seit dem letzten Request aus; die Uhr "
        "ist injizierbar, damit die Tests ohne `time.Sleep` auskommen."
    )
    s.call(s.write_call("internal/ratelimit/limiter.go", LIMITER_V1),
           s.write_call("internal/ratelimit/limiter_test.go", LIMITER_TEST))
    s.bash("CGO_ENABLED=1 go test -race -count=1 ./internal/ratelimit/ 2>&1 | head -40", """\
==================
WARNING: DATA RACE
Read at 0x00c0000b4018 by goroutine 12:
  gitlab.intern/plattform/gateway/internal/ratelimit.(*Limiter).Allow()
      /home/jonas/code/gateway/internal/ratelimit/limiter.go:33 +0x1a4
  gitlab.intern/plattform/gateway/internal/ratelimit.TestConcurrentAllow.func1()
      /home/jonas/code/gateway/internal/ratelimit/limiter_test.go:51 +0x7c

Previous write at 0x00c0000b4018 by goroutine 9:
  gitlab.intern/plattform/gateway/internal/ratelimit.(*Limiter).Allow()
      /home/jonas/code/gateway/internal/ratelimit/limiter.go:34 +0x238
==================
--- FAIL: TestConcurrentAllow (0.01s)
    testing.go:1490: race detected during execution of test
    limiter_test.go:61: allowed 117 of 200 concurrent requests, want about the burst of 100
FAIL
FAIL	gitlab.intern/plattform/gateway/internal/ratelimit	0.034s
FAIL""", desc="Race-Test für den Limiter", secs=6.0)
    s.say(
        "Der Race-Detector hat recht: `sync.Map` schützt nur die Map selbst, nicht die Felder im "
        "Bucket. Zwei Requests desselben Mandanten lesen gleichzeitig `tokens` und ziehen beide "
        "ab – daher 117 statt ~100 erlaubte Requests.\n\n"
        "`sync.Map` bringt hier ohnehin nichts: sie lohnt sich bei Schlüsseln, die oft gelesen und "
        "selten geschrieben werden, aber jeder `Allow` schreibt. Ich nehme eine normale Map mit "
        "einem `sync.Mutex`; der kritische Abschnitt ist ein paar Rechenoperationen lang."
    )
    s.edit("internal/ratelimit/limiter.go", '''	now     func() time.Time
	buckets sync.Map // key -> *bucket
}''', '''	now     func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}''')
    s.edit("internal/ratelimit/limiter.go",
           '''	return &Limiter{rate: float64(perMinute) / 60, burst: float64(burst), now: time.Now}''',
           '''	return &Limiter{
		rate:    float64(perMinute) / 60,
		burst:   float64(burst),
		now:     time.Now,
		buckets: make(map[string]*bucket),
	}''')
    s.edit("internal/ratelimit/limiter.go", '''	now := l.now()
	v, _ := l.buckets.LoadOrStore(key, &bucket{tokens: l.burst, last: now})
	b := v.(*bucket)
''', '''	l.mu.Lock()
	defer l.mu.Unlock()

	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
''')
    s.bash("CGO_ENABLED=1 go test -race -count=1 ./internal/ratelimit/ 2>&1 | head -40",
           "ok  \tgitlab.intern/plattform/gateway/internal/ratelimit\t1.041s",
           desc="Race-Test für den Limiter", secs=5.0)
    s.say("Sauber. Jetzt die Middleware mit 429 und `Retry-After`, und im Router hinter `Tenant`.")
    s.write("internal/middleware/ratelimit.go", MIDDLEWARE)
    s.edit("internal/server/router.go", '''	var h http.Handler = mux
	h = middleware.Tenant(h)''', '''	var h http.Handler = mux
	h = middleware.RateLimit(ratelimit.New(cfg.RateLimitPerMinute, cfg.RateLimitBurst), h)
	h = middleware.Tenant(h)''')
    s.edit("internal/server/router.go", '''	"gitlab.intern/plattform/gateway/internal/proxy"
)''', '''	"gitlab.intern/plattform/gateway/internal/proxy"
	"gitlab.intern/plattform/gateway/internal/ratelimit"
)''')
    s.bash("go vet ./... && go test ./... 2>&1 | tail -15", """\
# gitlab.intern/plattform/gateway/internal/server
internal/server/router.go:20:39: cfg.RateLimitPerMinute undefined (type Config has no field or method RateLimitPerMinute)
internal/server/router.go:20:63: cfg.RateLimitBurst undefined (type Config has no field or method RateLimitBurst)""",
           code=1, desc="Vet und alle Tests", secs=8.0)
    s.read("internal/server/config.go", '''package server

import "os"

type Config struct {
	Addr     string
	Upstream string
}

func ConfigFromEnv() Config {
	return Config{
		Addr:     getenv("GATEWAY_ADDR", ":8080"),
		Upstream: getenv("GATEWAY_UPSTREAM", "http://localhost:9000"),
	}
}

func getenv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
''')
    s.say("Die Config kennt die beiden Werte noch nicht. Ich lese sie wie die anderen aus der "
          "Umgebung, mit euren Vorgaben 100/min und Burst 20 als Default.")
    s.edit("internal/server/config.go", '''import "os"

type Config struct {
	Addr     string
	Upstream string
}''', '''import (
	"os"
	"strconv"
)

type Config struct {
	Addr               string
	Upstream           string
	RateLimitPerMinute int
	RateLimitBurst     int
}''')
    s.edit("internal/server/config.go", '''		Upstream: getenv("GATEWAY_UPSTREAM", "http://localhost:9000"),
	}
}''', '''		Upstream: getenv("GATEWAY_UPSTREAM", "http://localhost:9000"),

		RateLimitPerMinute: getenvInt("GATEWAY_RATELIMIT_PER_MINUTE", 100),
		RateLimitBurst:     getenvInt("GATEWAY_RATELIMIT_BURST", 20),
	}
}

func getenvInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil && n > 0 {
		return n
	}
	return def
}''')
    s.bash("go vet ./... && go test ./... 2>&1 | tail -15", """\
ok  	gitlab.intern/plattform/gateway/internal/middleware	0.021s
?   	gitlab.intern/plattform/gateway/internal/proxy	[no test files]
ok  	gitlab.intern/plattform/gateway/internal/ratelimit	1.012s
ok  	gitlab.intern/plattform/gateway/internal/server	0.044s
ok  	gitlab.intern/plattform/gateway/cmd/gateway	0.009s [no tests to run]""",
           desc="Vet und alle Tests", secs=12.0)
    s.bash("grep -c . go.sum; git diff --stat go.mod go.sum", "142", desc="Keine neuen Module?")
    s.say(
        "Fertig:\n\n"
        "- `internal/ratelimit/limiter.go`: Token-Bucket pro Mandant, Map + Mutex, Auffüllung "
        "beim Zugriff; nur `sync` und `time` aus der Standardbibliothek. `go.mod`/`go.sum` sind "
        "unverändert.\n"
        "- `internal/middleware/ratelimit.go`: 429 mit `Retry-After` in ganzen Sekunden "
        "(aufgerundet), hinter `Tenant` eingehängt.\n"
        "- Konfigurierbar über `GATEWAY_RATELIMIT_PER_MINUTE` / `GATEWAY_RATELIMIT_BURST`, "
        "Default 100/20.\n"
        "- `go vet` sauber, alle Tests grün, auch mit `-race`.\n\n"
        "Was noch fehlt: Buckets inaktiver Mandanten werden nie entfernt. Bei ein paar tausend "
        "Mandanten ist das egal, aber wenn Mandanten-IDs von außen frei wählbar sind, wächst die "
        "Map unbegrenzt. Ein Aufräumen alle paar Minuten (alles, was seit > 1 min voll ist) wäre "
        "der nächste Schritt."
    )
    s.turn_end()
    s.user("Danke! Eine Frage noch: in Prod laufen drei Instanzen hinter dem Load Balancer. "
           "Gilt das Limit dann pro Instanz?", wait=120)
    s.say(
        "Ja, jede Instanz zählt für sich. Bei drei Instanzen und gleichmäßiger Verteilung kommt "
        "ein Mandant effektiv auf bis zu 300 Requests pro Minute, bei Sticky Sessions eher auf "
        "100. Ein wirklich globales Limit bräuchte einen gemeinsamen Zähler, z. B. in Redis – das "
        "wäre aber genau die neue Abhängigkeit, die ihr vermeiden wollt. Alternativ könnte man "
        "das Limit pro Instanz durch die Anzahl der Replikas teilen, was bei Autoscaling "
        "allerdings ungenau wird. Das solltet ihr im Team entscheiden; ich habe nichts davon "
        "eingebaut."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "whole session in German",
        "stdlib-only rule and 429/Retry-After rule in the first prompt",
        "race detector failure behind `| head`, sync.Map abandoned for map+Mutex",
        "compile error from go vet (exit 1) then pass",
        "env prefix (CGO_ENABLED=1)",
        "todo and open question at the end",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Standardbibliothek"], ["Abhängigkeit", "x/time/rate"]],
         "note": "Keine externen Abhängigkeiten für das Rate-Limit, nur die Standardbibliothek; "
                 "golang.org/x/time/rate ist tabu, neue Module muss das Security-Team reviewen."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["429"], ["Retry-After"]],
         "note": "Beim Limit 429 mit Retry-After-Header zurückgeben; die Kunden-SDKs verlassen "
                 "sich beim Backoff darauf."},
        {"id": "d1", "type": "decision",
         "match": [["Auffüll"], ["Goroutine", "Ticker"]],
         "note": "Token-Bucket pro Mandant mit Auffüllung beim Zugriff statt eines Tickers pro "
                 "Mandant, weil das tausende untätige Goroutinen wären."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note", "decision"],
         "match": [["sync.Map"], ["race", "Mutex"]],
         "note": "sync.Map schützte die Bucket-Felder nicht (DATA RACE, 117 statt 100 erlaubt) "
                 "und passt nicht, weil jeder Allow schreibt; ersetzt durch Map + Mutex."},
        {"id": "b1", "type": "bug_note", "required": False,
         "match": [["Config", "config.go"], ["RateLimitPerMinute", "GATEWAY_RATELIMIT", "100/min"]],
         "note": "Config kannte RateLimitPerMinute/RateLimitBurst nicht; sie kommen aus der Umgebung."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["GATEWAY_RATELIMIT_PER_MINUTE", "GATEWAY_RATELIMIT_BURST"]],
         "note": "Das Limit ist über GATEWAY_RATELIMIT_PER_MINUTE / GATEWAY_RATELIMIT_BURST "
                 "konfigurierbar, Default 100/20."},
        {"id": "t1", "type": "todo",
         "match": [["inaktiv"], ["Bucket", "Map"]],
         "note": "Buckets inaktiver Mandanten werden nie entfernt; periodisch aufräumen."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "decision"],
         "match": [["Instanz"], ["global", "Redis"]],
         "note": "Das Limit gilt pro Instanz (3 Instanzen = bis 300/min); ein globales Limit "
                 "bräuchte Redis, also eine neue Abhängigkeit – Teamentscheidung offen."},
        {"id": "v1", "type": "verified_command",
         "command": "CGO_ENABLED=1 go test -race -count=1 ./internal/ratelimit/"},
        {"id": "v2", "type": "verified_command", "command": "go vet ./... && go test ./..."},
    ],
    "secrets": [],
    "forbidden": [],
}
