# ruff: noqa: E501  (verbatim command output and file contents)
"""Laravel invoices: a double click issues the PDF twice; a cache lock is abandoned (Rioplatense Spanish)."""

from make_sessions import Session

CONTROLLER = '''<?php

namespace App\\Http\\Controllers;

use App\\Jobs\\GenerarPdfFactura;
use App\\Models\\Factura;
use Illuminate\\Http\\RedirectResponse;

class FacturaController extends Controller
{
    public function emitir(Factura $factura): RedirectResponse
    {
        $this->authorize('emitir', $factura);

        if ($factura->estado !== 'borrador') {
            return back()->with('error', 'La factura ya fue emitida.');
        }

        $factura->update(['estado' => 'emitida', 'emitida_at' => now()]);
        GenerarPdfFactura::dispatch($factura);

        return redirect()->route('facturas.show', $factura)->with('ok', 'Factura emitida.');
    }
}
'''

TEST = '''<?php

use App\\Jobs\\GenerarPdfFactura;
use App\\Models\\Factura;
use App\\Models\\User;
use Illuminate\\Support\\Facades\\Queue;

it('emite una factura en borrador', function () {
    Queue::fake();
    $user = User::factory()->create();
    $factura = Factura::factory()->for($user->empresa)->create(['estado' => 'borrador']);

    $this->actingAs($user)->post(route('facturas.emitir', $factura))
        ->assertRedirect(route('facturas.show', $factura));

    expect($factura->fresh()->estado)->toBe('emitida');
    Queue::assertPushed(GenerarPdfFactura::class, 1);
});
'''


def build() -> Session:
    s = Session("laravel-facturas-es", cwd="/home/mati/code/facturador", branch="fix/doble-emision",
                start="2026-03-18T19:22:37.770Z", version="2.1.50", slug="quick-stamping-rhea")
    s.user(
        "Che, cuando el usuario hace doble click en \"Emitir\" se generan dos PDFs de la misma "
        "factura y a veces le llegan dos mails al cliente. Fijate en "
        "app/Http/Controllers/FacturaController.php.\n\n"
        "Acordate que acá las colas van por base de datos (QUEUE_CONNECTION=database): no hay "
        "Redis en el hosting, así que nada que dependa de Redis.",
        wait=5,
    )
    s.call(s.read_call("app/Http/Controllers/FacturaController.php", CONTROLLER),
           s.read_call("tests/Feature/EmitirFacturaTest.php", TEST))
    s.say(
        "El control `estado !== 'borrador'` no alcanza: los dos requests del doble click leen la "
        "factura casi al mismo tiempo, los dos la ven en `borrador`, y los dos la actualizan y "
        "despachan `GenerarPdfFactura`. Es una carrera entre leer y escribir.\n\n"
        "Primero un test que la reproduzca con dos requests seguidos sobre el mismo modelo "
        "cargado:"
    )
    s.edit("tests/Feature/EmitirFacturaTest.php", '''    Queue::assertPushed(GenerarPdfFactura::class, 1);
});
''', '''    Queue::assertPushed(GenerarPdfFactura::class, 1);
});

it('no emite dos veces con un doble click', function () {
    Queue::fake();
    $user = User::factory()->create();
    $factura = Factura::factory()->for($user->empresa)->create(['estado' => 'borrador']);

    // Simula la carrera: el segundo request ya cargó la factura cuando todavía era borrador.
    $vieja = $factura->replicate()->setRawAttributes($factura->getAttributes());
    $this->actingAs($user)->post(route('facturas.emitir', $factura));
    app(\\App\\Http\\Controllers\\FacturaController::class)->emitir($vieja);

    Queue::assertPushed(GenerarPdfFactura::class, 1);
});
''')
    s.bash("php artisan test --filter=EmitirFacturaTest 2>&1 | tail -15", """\

   FAIL  Tests\\Feature\\EmitirFacturaTest
  ✓ emite una factura en borrador                                        0.21s
  ⨯ no emite dos veces con un doble click                                0.05s
  ──────────────────────────────────────────────────────────────────────────────
   FAILED  Tests\\Feature\\EmitirFacturaTest > no emite dos veces con un doble click
  The expected [App\\Jobs\\GenerarPdfFactura] job was pushed 2 times instead of 1 times.
Failed asserting that 2 is identical to 1.

  Tests:    1 failed, 1 passed (3 assertions)
  Duration: 0.41s""", desc="Test de emisión", secs=5.0)
    s.say("Reproducido. Lo más directo en Laravel es un lock atómico alrededor de la emisión con "
          "`Cache::lock`, que funciona con el driver de cache que haya configurado:")
    s.edit("app/Http/Controllers/FacturaController.php", '''        if ($factura->estado !== 'borrador') {
            return back()->with('error', 'La factura ya fue emitida.');
        }

        $factura->update(['estado' => 'emitida', 'emitida_at' => now()]);
        GenerarPdfFactura::dispatch($factura);
''', '''        $lock = Cache::lock("emitir-factura-{$factura->id}", 10);
        if (! $lock->get()) {
            return back()->with('error', 'La factura se está emitiendo.');
        }

        try {
            $factura->refresh();
            if ($factura->estado !== 'borrador') {
                return back()->with('error', 'La factura ya fue emitida.');
            }
            $factura->update(['estado' => 'emitida', 'emitida_at' => now()]);
            GenerarPdfFactura::dispatch($factura);
        } finally {
            $lock->release();
        }
''')
    s.bash("grep -n -E '^(CACHE_STORE|CACHE_DRIVER|QUEUE_CONNECTION)' .env.example", """\
12:CACHE_STORE=file
13:QUEUE_CONNECTION=database""", desc="Qué cache usa")
    s.say("Antes de seguir: `.env.example` tiene `CACHE_STORE=file`. ¿En producción también es "
          "`file`? Si hay más de un servidor web, un lock en archivos locales no los coordina.")
    s.turn_end()
    s.user("sí, es file, y son 3 servidores atrás del balanceador. cada uno tiene su propio "
           "storage, así que el lock no serviría. sacalo", wait=70)
    s.say(
        "Entonces el lock queda descartado: con tres servidores y cache en archivo, dos clicks "
        "que caen en servidores distintos tomarían dos locks distintos.\n\n"
        "Lo único que comparten los tres es MySQL, así que la exclusión tiene que estar ahí: "
        "pasar de `borrador` a `emitida` con un `UPDATE ... WHERE estado = 'borrador'` "
        "condicional. MySQL lo aplica de forma atómica; solo uno de los requests ve "
        "`affected rows = 1` y ese es el único que despacha el job."
    )
    s.edit("app/Http/Controllers/FacturaController.php", '''        $lock = Cache::lock("emitir-factura-{$factura->id}", 10);
        if (! $lock->get()) {
            return back()->with('error', 'La factura se está emitiendo.');
        }

        try {
            $factura->refresh();
            if ($factura->estado !== 'borrador') {
                return back()->with('error', 'La factura ya fue emitida.');
            }
            $factura->update(['estado' => 'emitida', 'emitida_at' => now()]);
            GenerarPdfFactura::dispatch($factura);
        } finally {
            $lock->release();
        }
''', '''        // Los 3 servidores web solo comparten MySQL: el paso borrador -> emitida es un UPDATE
        // condicional, y solo el request que lo gana despacha el PDF.
        $ganó = Factura::whereKey($factura->id)
            ->where('estado', 'borrador')
            ->update(['estado' => 'emitida', 'emitida_at' => now()]) === 1;

        if ($ganó) {
            GenerarPdfFactura::dispatch($factura->refresh());
        }
''')
    q = "¿Qué tiene que ver el usuario cuando su segundo click llega tarde?"
    s.ask(
        [{"question": q, "header": "2º click",
          "options": [("La factura emitida", "Redirigir a la factura como si nada"),
                      ("Un aviso", "Mostrar 'La factura ya fue emitida'")]}],
        {q: "La factura emitida, sin aviso. La gente hace doble click siempre, no es un error suyo; no le mostremos errores por eso"},
        wait=40,
    )
    s.edit("app/Http/Controllers/FacturaController.php",
           "        return redirect()->route('facturas.show', $factura)->with('ok', 'Factura emitida.');",
           "        // El segundo click de un doble click no es un error: ve la factura, sin aviso.\n"
           "        $destino = redirect()->route('facturas.show', $factura);\n\n"
           "        return $ganó ? $destino->with('ok', 'Factura emitida.') : $destino;")
    s.bash("php artisan test --filter=EmitirFacturaTest 2>&1 | tail -15", """\

   PASS  Tests\\Feature\\EmitirFacturaTest
  ✓ emite una factura en borrador                                        0.20s
  ✓ no emite dos veces con un doble click                                0.04s

  Tests:    2 passed (4 assertions)
  Duration: 0.38s""", desc="Test de emisión", secs=5.0)
    s.bash("./vendor/bin/pint --test && php artisan test --parallel 2>&1 | tail -4", """\

  PASS   ............................................................. 41 files

  Tests:    187 passed (612 assertions)
  Duration: 9.12s
  Parallel: 8 processes""", desc="Pint y toda la suite", secs=16.0)
    s.say(
        "Listo:\n\n"
        "- `FacturaController::emitir`: el paso `borrador` → `emitida` es un `UPDATE` "
        "condicional en MySQL; solo el request que lo gana despacha `GenerarPdfFactura`. Nada "
        "de Redis ni de cache: funciona con los 3 servidores.\n"
        "- El segundo click redirige a la factura emitida, sin mensaje de error.\n"
        "- Test nuevo que simula la carrera; suite completa (187) y Pint en verde.\n\n"
        "Queda una cosa para ver: las facturas que ya se emitieron dos veces tienen dos PDFs en "
        "`storage/app/facturas/` y puede que el cliente haya recibido dos mails. No toqué nada "
        "de eso; habría que decidir si se limpian los duplicados y si hace falta avisar a alguien."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Rioplatense Spanish",
        "rule (no Redis, database queue)",
        "Cache::lock abandoned after the user's answer (3 servers, file cache)",
        "AskUserQuestion answer that is a preference",
        "decision with its why (conditional UPDATE)",
        "Pest failure behind `| tail` then pass",
        "todo/open question at the end",
    ],
    "language": "es",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Redis"], ["QUEUE_CONNECTION", "base de datos", "hosting"]],
         "note": "Las colas van por base de datos (QUEUE_CONNECTION=database); no hay Redis en el "
                 "hosting, nada que dependa de Redis."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["Cache::lock", "lock"], ["3 servidores", "tres servidores", "file"]],
         "note": "Un Cache::lock no sirve: CACHE_STORE=file y 3 servidores detrás del balanceador, "
                 "cada uno con su storage; se sacó."},
        {"id": "d1", "type": "decision",
         "match": [["UPDATE"], ["condicional"], ["MySQL", "comparten"]],
         "note": "La emisión es un UPDATE condicional (WHERE estado = 'borrador') en MySQL, lo único "
                 "que comparten los 3 servidores; solo el request que lo gana despacha el PDF."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["doble click"], ["dos PDFs", "dos veces", "2 times"]],
         "note": "El doble click en Emitir generaba dos PDFs: los dos requests veían la factura en "
                 "borrador (carrera entre leer y escribir)."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint", "decision"],
         "match": [["doble click"], ["error", "aviso"]],
         "note": "El segundo click muestra la factura emitida sin aviso: el doble click no es un "
                 "error del usuario."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["storage/app/facturas", "duplicados"], ["PDF", "mail"]],
         "note": "Decidir si se limpian los PDFs duplicados en storage/app/facturas y si hay que "
                 "avisar a clientes que recibieron dos mails."},
        {"id": "v1", "type": "verified_command", "command": "php artisan test --filter=EmitirFacturaTest"},
        {"id": "v2", "type": "verified_command",
         "command": "./vendor/bin/pint --test && php artisan test --parallel"},
    ],
    "secrets": [],
    "forbidden": [["User has answered your questions"]],
}
