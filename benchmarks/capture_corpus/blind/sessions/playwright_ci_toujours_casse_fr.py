# ruff: noqa: E501  (verbatim command output and file contents)
"""Playwright e2e red in CI only; a user who mostly pastes errors ("toujours cassé"); two wrong fixes, an interrupted `--ui` run, locale and a stale date (French)."""

from make_sessions import Session

SPEC = '''import { test, expect } from '@playwright/test';

test.describe('devis santé', () => {
  test('un particulier obtient un devis', async ({ page }) => {
    await page.goto('/devis');
    await page.getByLabel('Date de naissance').fill('15/04/1985');
    await page.getByLabel('Code postal').fill('69003');
    await page.getByRole('button', { name: 'Continuer' }).click();
    await page.getByLabel('Formule').selectOption('confort');
    await page.getByLabel("Date d'effet").fill('01/03/2026');
    await page.getByRole('button', { name: 'Valider' }).click();
    await expect(page).toHaveURL(/confirmation/);
    await expect(page.getByText('Votre devis est prêt')).toBeVisible();
  });
});
'''

CONFIG = '''import { defineConfig, devices } from '@playwright/test';

export default defineConfig({
  testDir: './e2e',
  timeout: 30_000,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [['github'], ['html', { open: 'never' }]] : 'list',
  use: {
    baseURL: process.env.BASE_URL ?? 'http://localhost:5173',
    trace: 'retain-on-failure',
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
  webServer: {
    command: 'npm run preview -- --port 5173',
    url: 'http://localhost:5173',
    reuseExistingServer: !process.env.CI,
  },
});
'''

ESLINT = '''  {
    files: ['e2e/**/*.ts'],
    rules: {
      'playwright/no-networkidle': 'error',
      'playwright/no-wait-for-timeout': 'error',
    },
  },
'''

I18N = '''import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import fr from './locales/fr.json';
import en from './locales/en.json';

i18n.use(LanguageDetector).init({
  resources: { fr: { translation: fr }, en: { translation: en } },
  fallbackLng: 'fr',
  detection: { order: ['querystring', 'localStorage', 'navigator'] },
});

export default i18n;
'''


def build() -> Session:
    s = Session("playwright-ci-toujours-casse-fr", cwd="/home/nadia/dev/mutuelle-front", branch="fix/e2e-devis",
                start="2026-03-18T15:33:48.117Z", version="2.1.59", slug="devis-flaky-heron")
    s.user(
        "le e2e devis est rouge en CI depuis hier, en local ça passe\n\n"
        "```\n  1) [chromium] › devis.spec.ts:4:3 › devis santé › un particulier obtient un devis ──────────\n\n"
        "    Error: locator.click: Test timeout of 30000ms exceeded.\n    Call log:\n"
        "      - waiting for getByRole('button', { name: 'Continuer' })\n\n"
        "       6 |     await page.getByLabel('Code postal').fill('69003');\n"
        "    >  7 |     await page.getByRole('button', { name: 'Continuer' }).click();\n```",
        wait=5,
    )
    s.call(s.read_call("e2e/devis.spec.ts", SPEC), s.read_call("playwright.config.ts", CONFIG))
    s.say(
        "Le test attend le bouton « Continuer » et ne le trouve jamais. En CI la page est servie par `npm run preview` "
        "à froid ; il est possible que le formulaire ne soit pas encore hydraté quand on remplit les champs. J'ajoute une "
        "attente de chargement complet après le `goto`."
    )
    s.edit("e2e/devis.spec.ts", '''    await page.goto('/devis');
''', '''    await page.goto('/devis');
    await page.waitForLoadState('networkidle');
''')
    s.bash("npx playwright test devis --reporter=line", '''Running 1 test using 1 worker
[1/1] [chromium] › devis.spec.ts:4:3 › devis santé › un particulier obtient un devis
  1 passed (6.2s)''', desc="e2e devis en local", secs=14)
    s.say("Passe en local (comme avant). Tu peux pousser pour voir la CI ?")
    s.turn_end()
    s.user(
        "toujours cassé\n\n```\n    Error: locator.click: Test timeout of 30000ms exceeded.\n    Call log:\n"
        "      - waiting for getByRole('button', { name: 'Continuer' })\n```\n\n"
        "et le lint a gueulé: `error  Unexpected use of networkidle  playwright/no-networkidle`. on l'a interdit, c'est flaky par nature",
        wait=300,
    )
    s.say("Pardon, je retire `networkidle`. Je regarde la config eslint pour ne pas retomber dans d'autres règles :")
    s.edit("e2e/devis.spec.ts", '''    await page.goto('/devis');
    await page.waitForLoadState('networkidle');
''', '''    await page.goto('/devis');
''')
    s.grep("playwright/", content=ESLINT.strip("\n"), path="eslint.config.js")
    s.say(
        "`no-networkidle` et `no-wait-for-timeout` en erreur. Autre piste : la machine CI est plus lente, 30 s est "
        "peut-être juste. Je monte le timeout du test à 60 s pour voir si c'est une question de vitesse."
    )
    s.edit("playwright.config.ts", '''  timeout: 30_000,''', '''  timeout: 60_000,''')
    s.turn_end()
    s.user(
        "toujours pareil, juste que ça met 60s à planter maintenant. et on reste à 30s, la CI est facturée à la minute, "
        "c'est pas en attendant plus longtemps qu'un bouton va apparaître",
        wait=420,
    )
    s.say(
        "Bien vu, je remets 30 s. Si le bouton n'apparaît pas en 60 s, il n'est pas lent : il n'est pas là, ou il "
        "s'appelle autrement. Je vais regarder la page comme la voit la CI, avec l'UI de Playwright :"
    )
    s.edit("playwright.config.ts", '''  timeout: 60_000,''', '''  timeout: 30_000,''')
    s.call(s.rejected_call("Bash", {"command": "npx playwright test devis --ui", "description": "Playwright UI"}, secs=25.0))
    s.interrupt(for_tool=True)
    s.user("pas l'UI, ça ouvre une fenêtre et ça bloque tout. --reporter=line et la trace, comme d'hab", wait=8)
    s.say(
        "OK, pas d'UI. Différence évidente entre ta machine et le runner : la langue. La CI tourne dans l'image Docker "
        "Playwright, sans `LANG` français, et Chromium prend la langue du système. Je regarde comment l'appli choisit sa langue :"
    )
    s.read("src/i18n.ts", I18N)
    s.say(
        "`i18next-browser-languagedetector` avec `navigator` en dernier : un Chromium en `en-US` affiche l'appli en "
        "anglais, et le bouton ne s'appelle plus « Continuer ». Je reproduis en forçant la langue :"
    )
    s.bash("LANG=en_US.UTF-8 npx playwright test devis --reporter=line 2>&1 | tail -6", '''  1) [chromium] › devis.spec.ts:4:3 › devis santé › un particulier obtient un devis

    Error: locator.click: Test timeout of 30000ms exceeded.
    Call log:
      - waiting for getByRole('button', { name: 'Continuer' })

  1 failed''', desc="Reproduire avec une locale anglaise", secs=40)
    s.bash("grep -n '\"continue\\|\"submit' src/locales/en.json", '''14:    "continue": "Continue",
31:    "submit": "Submit",''', desc="Libellés anglais")
    s.say(
        "Reproduit. Deux façons de corriger : passer aux `data-testid`, ou fixer la locale du navigateur de test. Je fixe "
        "`locale: 'fr-FR'` dans la config : les tests restent écrits sur les libellés visibles, et ils ne dépendent plus de "
        "la machine."
    )
    s.edit("playwright.config.ts", '''    trace: 'retain-on-failure',''', '''    trace: 'retain-on-failure',
    // Chromium prend sinon la langue du système (en-US dans l'image CI) et l'appli passe en anglais.
    locale: 'fr-FR',
    timezoneId: 'Europe/Paris',''')
    s.bash("LANG=en_US.UTF-8 npx playwright test devis --reporter=line 2>&1 | tail -12", '''  1) [chromium] › devis.spec.ts:4:3 › devis santé › un particulier obtient un devis

    Error: expect(page).toHaveURL(expected)

    Expected pattern: /confirmation/
    Received string:  "http://localhost:5173/devis/etape-2"
    Call log:
      - expect.toHaveURL with timeout 5000ms
      - waiting for navigation until "load"

  1 failed
    [chromium] › devis.spec.ts:4:3 › devis santé › un particulier obtient un devis''', desc="Avec locale fr-FR", secs=38)
    s.say("On passe « Continuer » maintenant, mais on reste bloqué à l'étape 2. Je regarde la trace de cet échec :")
    s.bash("npx playwright show-trace --help >/dev/null; unzip -p test-results/devis-devis-santé-un-particulier-obtient-un-devis-chromium/trace.zip trace.trace | grep -o 'La date d[^\"]*' | head -3", '''La date d'effet doit être postérieure à aujourd'hui''', desc="Message d'erreur dans la trace")
    s.say(
        "Le formulaire refuse la date d'effet : le test tape `01/03/2026` en dur, et depuis le 1er mars elle est dans le "
        "passé. Ça n'a rien à voir avec la CI — en local ça passait seulement parce que… non, en local ça doit casser aussi "
        "depuis le 2 mars. Tu avais lancé le test en local récemment ?"
    )
    s.turn_end()
    s.user("non depuis la semaine dernière. ah. ok", wait=35)
    s.say("Alors c'étaient deux pannes empilées : la langue en CI, et la date figée partout. Je calcule la date d'effet au 1er du mois prochain :")
    s.edit("e2e/devis.spec.ts", '''import { test, expect } from '@playwright/test';
''', '''import { test, expect } from '@playwright/test';

/** 1er du mois prochain en jj/mm/aaaa : la date d'effet doit être dans le futur. */
function premierDuMoisProchain(): string {
  const d = new Date();
  const p = new Date(d.getFullYear(), d.getMonth() + 1, 1);
  return `01/${String(p.getMonth() + 1).padStart(2, '0')}/${p.getFullYear()}`;
}
''')
    s.edit("e2e/devis.spec.ts", '''    await page.getByLabel("Date d'effet").fill('01/03/2026');''',
           '''    await page.getByLabel("Date d'effet").fill(premierDuMoisProchain());''')
    s.bash("LANG=en_US.UTF-8 npx playwright test devis --reporter=line", '''Running 1 test using 1 worker
[1/1] [chromium] › devis.spec.ts:4:3 › devis santé › un particulier obtient un devis
  1 passed (7.9s)''', desc="Avec locale anglaise système", secs=30)
    s.bash("npx playwright test --reporter=line && npm run lint", '''Running 14 tests using 4 workers
  14 passed (41.3s)

> mutuelle-front@3.8.0 lint
> eslint . --max-warnings 0
''', desc="Toute la suite e2e + lint", secs=75)
    s.say(
        "Tout passe, y compris sous `LANG=en_US.UTF-8`, et le lint est propre.\n\n"
        "Ce qu'il y avait :\n"
        "1. **Langue** : l'image CI n'a pas de locale française, Chromium annonce `en-US`, le détecteur d'i18next met "
        "l'appli en anglais, et `getByRole('button', { name: 'Continuer' })` ne trouve rien. → `locale: 'fr-FR'` et "
        "`timezoneId: 'Europe/Paris'` dans `playwright.config.ts`.\n"
        "2. **Date figée** : `01/03/2026` est passée depuis le 1er mars ; calculée maintenant.\n\n"
        "Abandonné : `networkidle` (interdit par le lint) et le timeout à 60 s (ça ne faisait que retarder l'échec). "
        "Les deux sont retirés.\n\n"
        "Pas fait : je n'ai pas vérifié si d'autres specs ont des dates en dur ; `adhesion.spec.ts` a aussi un champ date, "
        "je ne sais pas s'il est concerné."
    )
    s.turn_end()
    s.user("ok je pousse. adhesion je regarde demain. et quelqu'un devrait épingler la version de l'image playwright dans la CI sur celle du package, c'est pas la première fois", wait=60)
    s.say("Noté, je m'arrête là.")
    s.turn_end()
    s.user("vert en CI 👍", wait=600)
    s.say("Parfait.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Playwright e2e (chromium, i18next, React/Vite preview) red in CI only, French; a user who mostly pastes CI errors and says \"toujours cassé\"",
        "two wrong fixes reported by the user and reverted (networkidle, forbidden by a lint rule; a 60 s timeout, refused with its reason)",
        "an interrupted `--ui` run, then a rule (no UI, --reporter=line and the trace)",
        "reproduction behind `| tail` with LANG=en_US (browser locale), `locale: 'fr-FR'` in the config, keeping tests on visible labels",
        "a second stacked bug found in the trace (a hard-coded effective date now in the past)",
        "wrap-up with what was NOT checked; todo the user takes (adhesion tomorrow) and a 'someone should' todo",
    ],
    "language": "fr",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference", "failed_attempt"],
         "match": [["networkidle"], ["lint", "interdit", "flaky"]],
         "note": "networkidle (et waitForTimeout) sont interdits par le lint dans e2e/, c'est flaky par nature."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference", "failed_attempt"],
         "match": [["30"], ["timeout", "minute", "facturée"]],
         "note": "Le timeout des tests reste à 30 s : la CI est facturée à la minute, monter à 60 s ne faisait que retarder l'échec."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["--ui", "l'UI"], ["--reporter=line", "bloque"]],
         "note": "Pas de `playwright test --ui` depuis l'agent (fenêtre qui bloque) : --reporter=line et la trace."},
        {"id": "b1", "type": "bug_note",
         "match": [["locale", "langue"], ["en-US", "anglais", "en_US"], ["Continuer"]],
         "note": "E2E rouge en CI seulement : l'image CI est en en-US, i18next met l'appli en anglais, le bouton « Continuer » n'existe pas ; locale fr-FR dans playwright.config.ts."},
        {"id": "d1", "type": "decision",
         "match": [["fr-FR"], ["data-testid", "libellés visibles"]],
         "note": "Fixer locale: 'fr-FR' (et timezoneId Europe/Paris) dans la config plutôt que passer aux data-testid : les tests restent sur les libellés visibles."},
        {"id": "b2", "type": "bug_note",
         "match": [["date d'effet"], ["01/03/2026", "passé", "postérieure"]],
         "note": "La date d'effet 01/03/2026 écrite en dur dans devis.spec.ts est passée depuis le 1er mars ; calculée au 1er du mois prochain."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["adhesion"], ["demain", "date"]],
         "note": "Vérifier demain si adhesion.spec.ts a aussi une date en dur."},
        {"id": "t2", "type": "todo",
         "match": [["épingler", "version"], ["image"]],
         "note": "Quelqu'un devrait épingler la version de l'image Playwright de la CI sur celle du package."},
        {"id": "v1", "type": "verified_command", "command": "npx playwright test --reporter=line && npm run lint"},
        {"id": "v2", "type": "verified_command", "command": "LANG=en_US.UTF-8 npx playwright test devis --reporter=line"},
        {"id": "v3", "type": "verified_command", "command": "npx playwright test devis --reporter=line", "required": False},
    ],
    "secrets": [],
    "forbidden": [["Request interrupted"], ["doesn't want to proceed"]],
}
