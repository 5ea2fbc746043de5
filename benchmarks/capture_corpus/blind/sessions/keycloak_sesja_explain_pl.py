# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: a read-only question why Keycloak users are logged out after ~30 minutes despite "remember me"; realm export read, token decoded, an edit to the realm export rejected ("just asking"), `/exit` (Polish)."""

from make_sessions import Session

REALM = '''{
  "realm": "sklep",
  "enabled": true,
  "sslRequired": "external",
  "rememberMe": true,
  "ssoSessionIdleTimeout": 1800,
  "ssoSessionMaxLifespan": 36000,
  "ssoSessionIdleTimeoutRememberMe": 0,
  "ssoSessionMaxLifespanRememberMe": 0,
  "offlineSessionIdleTimeout": 2592000,
  "accessTokenLifespan": 300,
  "clients": [
    {
      "clientId": "sklep-web",
      "publicClient": true,
      "standardFlowEnabled": true,
      "attributes": {
        "pkce.code.challenge.method": "S256",
        "client.session.idle.timeout": "",
        "client.session.max.lifespan": ""
      }
    }
  ]
}
'''


def build() -> Session:
    s = Session("keycloak-sesja-explain-pl", cwd="/home/kuba/projekty/sklep-infra", branch="main",
                start="2026-06-05T12:31:08.771Z", version="2.1.45", slug="keycloak-remember-me-idle")
    s.user(
        "pytanie: czemu userów wylogowuje po ok. pół godziny bezczynności mimo że zaznaczyli \"zapamiętaj mnie\"? keycloak 24, realm sklep, eksport jest w repo",
        wait=6,
    )
    s.glob("**/realm*.json", ["keycloak/realm-sklep.json"])
    s.read("keycloak/realm-sklep.json", REALM)
    s.grep("refresh|updateToken|onTokenExpired", content='''web/src/auth/keycloak.ts:10:  keycloak.onTokenExpired = () => keycloak.updateToken(30);
web/src/auth/keycloak.ts:11:  await keycloak.init({ onLoad: 'check-sso', pkceMethod: 'S256', checkLoginIframe: false });''', path="../sklep-web")
    s.read("../sklep-web/web/src/auth/keycloak.ts", '''import Keycloak from 'keycloak-js';

export const keycloak = new Keycloak({
  url: 'https://auth.sklep.internal',
  realm: 'sklep',
  clientId: 'sklep-web',
});

export async function initAuth() {
  keycloak.onTokenExpired = () => keycloak.updateToken(30);
  await keycloak.init({ onLoad: 'check-sso', pkceMethod: 'S256', checkLoginIframe: false });
}''')
    s.bash("git log --oneline -3 -- keycloak/realm-sklep.json", '''b3e1f20 realm sklep: PKCE S256 dla sklep-web
77a0c19 realm sklep: rememberMe włączone
1d94e02 realm sklep: eksport początkowy''', desc="Historia eksportu realmu")
    s.bash("curl -s https://auth.sklep.internal/realms/sklep/.well-known/openid-configuration | jq -r '.issuer, .end_session_endpoint'", '''https://auth.sklep.internal/realms/sklep
https://auth.sklep.internal/realms/sklep/protocol/openid-connect/logout''', desc="Konfiguracja OIDC realmu (tylko odczyt)")
    s.say(
        "Z eksportu realmu wynika to tak:\n\n"
        "- `ssoSessionIdleTimeout: 1800` — sesja SSO wygasa po **30 minutach bez odświeżenia**.\n"
        "- `ssoSessionIdleTimeoutRememberMe: 0` i `ssoSessionMaxLifespanRememberMe: 0` — **0 nie znaczy „bez limitu”**: dla "
        "sesji z „zapamiętaj mnie” Keycloak wtedy po prostu używa zwykłych wartości (1800 s / 10 h). Czyli „zapamiętaj mnie” "
        "nie wydłuża tu niczego; zmienia tylko to, że ciasteczko `KEYCLOAK_REMEMBER_ME` przeżyje zamknięcie przeglądarki.\n"
        "- Frontend odświeża token tylko w `onTokenExpired` — a to się dzieje, gdy karta jest aktywna i kod działa. Karta w "
        "tle przez 30 minut nie odświeża nic, więc sesja po stronie serwera wygasa i przy następnym `updateToken` jest "
        "`invalid_grant: Session not active`.\n\n"
        "Żeby „zapamiętaj mnie” faktycznie trzymało dłużej, trzeba by ustawić wartości `…RememberMe` w realmie, np. 7 dni:"
    )
    s.edit_rejected("keycloak/realm-sklep.json", '''  "ssoSessionIdleTimeoutRememberMe": 0,
  "ssoSessionMaxLifespanRememberMe": 0,''', '''  "ssoSessionIdleTimeoutRememberMe": 604800,
  "ssoSessionMaxLifespanRememberMe": 2592000,''',
                    reason="nie nie, nic nie zmieniaj. pytam tylko żeby zrozumieć skąd to się bierze")
    s.say("Jasne, nic nie zmieniam. To tylko wyjaśnienie: przy obecnych ustawieniach 30 minut bezczynności kończy każdą sesję, z „zapamiętaj mnie” czy bez.")
    s.turn_end()
    s.user("a offline tokeny? tam jest 30 dni", wait=50)
    s.say(
        "`offlineSessionIdleTimeout` (30 dni) dotyczy tylko **sesji offline** — gdy klient prosi o scope `offline_access` i "
        "dostaje offline token. `sklep-web` o niego nie prosi (w `init` nie ma `scope: 'offline_access'`), więc ta wartość "
        "w ogóle nie działa dla zwykłego logowania w przeglądarce. Dla publicznego klienta SPA offline tokeny i tak zwykle "
        "się odradza, bo token leży w przeglądarce."
    )
    s.turn_end()
    s.user("ok, jasne, dzięki", wait=40)
    s.say("Proszę bardzo.")
    s.turn_end()
    s.local_command("exit", "Do zobaczenia!", wait=8)
    return s


GOLD = {
    "covers": [
        "a read-only question why Keycloak 24 sessions end after 30 idle minutes despite remember-me, Polish",
        "realm export read, a grep in the frontend, a read-only curl of the OIDC configuration",
        "an explanation (RememberMe timeouts 0 fall back to the normal ones; background tabs don't refresh), a follow-up on offline tokens",
        "a proposed edit rejected (\"nic nie zmieniaj, pytam tylko\"), `/exit`",
    ],
    "language": "pl",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
