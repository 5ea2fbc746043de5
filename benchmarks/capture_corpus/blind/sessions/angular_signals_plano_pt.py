# ruff: noqa: E501  (verbatim command output and file contents)
"""Angular 17 migration to signals planned over several turns in plan mode, then the first component; a wrap-up saying what was NOT done and why (Brazilian Portuguese)."""

from make_sessions import Call, Session

FILTRO_TS = '''import { Component, EventEmitter, Input, OnChanges, Output } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { StatusCobranca } from '../modelos';

@Component({
  selector: 'app-filtro-cobrancas',
  standalone: true,
  imports: [FormsModule],
  templateUrl: './filtro-cobrancas.component.html',
})
export class FiltroCobrancasComponent implements OnChanges {
  @Input() status: StatusCobranca = 'todas';
  @Input() totais: Record<StatusCobranca, number> = { todas: 0, pendente: 0, paga: 0, vencida: 0 };
  @Output() statusChange = new EventEmitter<StatusCobranca>();

  rotulo = '';

  ngOnChanges(): void {
    this.rotulo = `${this.totais[this.status]} cobranças`;
  }

  selecionar(s: StatusCobranca): void {
    this.statusChange.emit(s);
  }
}
'''

PAINEL_TS = '''@Component({
  selector: 'app-painel-cobrancas',
  standalone: true,
  imports: [AsyncPipe, FiltroCobrancasComponent, TabelaCobrancasComponent],
  template: `
    <app-filtro-cobrancas [status]="(status$ | async)!" [totais]="(totais$ | async)!"
                          (statusChange)="mudarStatus($event)" />
    <app-tabela-cobrancas [linhas]="(linhas$ | async)!" />
  `,
})
export class PainelCobrancasComponent {
  private store = inject(Store);
  status$ = this.store.select(selectStatusFiltro);
  totais$ = this.store.select(selectTotaisPorStatus);
  linhas$ = this.store.select(selectLinhasFiltradas);

  mudarStatus(s: StatusCobranca) {
    this.store.dispatch(CobrancasActions.filtroAlterado({ status: s }));
  }
}
'''

SPEC_TS = '''import { ComponentFixture, TestBed } from '@angular/core/testing';
import { FiltroCobrancasComponent } from './filtro-cobrancas.component';

describe('FiltroCobrancasComponent', () => {
  let fixture: ComponentFixture<FiltroCobrancasComponent>;
  let component: FiltroCobrancasComponent;

  beforeEach(() => {
    fixture = TestBed.createComponent(FiltroCobrancasComponent);
    component = fixture.componentInstance;
  });

  it('mostra o total do status selecionado', () => {
    component.status = 'vencida';
    component.totais = { todas: 40, pendente: 12, paga: 20, vencida: 8 };
    component.ngOnChanges();
    fixture.detectChanges();
    expect(fixture.nativeElement.textContent).toContain('8 cobranças');
  });
});
'''

PLAN_PATH = "/home/leticia/.claude/plans/cobrancas-signals-capivara.md"
PLAN = '''# Migração do painel de cobranças para signals (Angular 17.3)

## Regras combinadas
- NgRx fica: o time de Pagamentos depende das actions `CobrancasActions.*`. Nada de signalStore.
- zone.js fica; zoneless só depois do upgrade para o 18.
- Um componente por PR (review do Caio).

## Abordagem
- Componentes de apresentação: `@Input`/`@Output` → `input()`/`output()`, estado derivado em `computed()` (some o `ngOnChanges`).
- Painel: `store.selectSignal(...)` no lugar de `select(...) | async`.

## Ordem (uma PR cada)
1. FiltroCobrancasComponent (menor, sem dependências) + ajuste no painel só para ele
2. TabelaCobrancasComponent (virtual scroll do CDK: verificar antes)
3. Painel: remover os `| async` restantes

## Testes
- Specs passam a usar `fixture.componentRef.setInput(...)`.
'''


def build() -> Session:
    s = Session("angular-signals-plano-pt", cwd="/home/leticia/trampo/painel-cobrancas", branch="signals-filtro",
                start="2026-03-23T13:12:40.286Z", version="2.1.60", slug="cobrancas-signals-capivara",
                permission_mode="plan", stop_reasons=True)
    s.user(
        "quero começar a migrar o painel de cobranças pra signals. estamos no angular 17.3. antes de mexer em qualquer coisa "
        "quero um plano, vamos conversar primeiro",
        wait=5,
    )
    s.bash("grep -rln 'BehaviorSubject\\|| async\\|ngOnChanges' src/app/cobrancas | sort", '''src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.ts
src/app/cobrancas/painel-cobrancas.component.ts
src/app/cobrancas/tabela-cobrancas/tabela-cobrancas.component.html
src/app/cobrancas/tabela-cobrancas/tabela-cobrancas.component.ts''', desc="Onde há RxJS/async/ngOnChanges")
    s.call(s.read_call("src/app/cobrancas/painel-cobrancas.component.ts", PAINEL_TS),
           s.read_call("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.ts", FILTRO_TS))
    s.bash("grep -n '\"@ngrx\\|\"@angular/core\\|\"zone.js\\|\"@angular/cdk' package.json", '''18:    "@angular/cdk": "^17.3.4",
19:    "@angular/core": "^17.3.4",
27:    "@ngrx/store": "^17.2.0",
31:    "zone.js": "~0.14.4",''', desc="Versões")
    s.say(
        "O que encontrei: o painel lê três selectors do NgRx com `| async` e passa para dois componentes de apresentação "
        "(filtro e tabela) com `@Input`. O filtro recalcula um rótulo em `ngOnChanges`.\n\n"
        "Antes de montar o plano, três perguntas:\n"
        "1. O NgRx fica, ou a ideia é trocar o store por `signalStore` (`@ngrx/signals`)?\n"
        "2. Zoneless (`provideExperimentalZonelessChangeDetection`) entra nessa migração?\n"
        "3. Tudo numa PR ou em partes?"
    )
    s.turn_end()
    s.user(
        "1. ngrx fica. o time de pagamentos escuta as nossas actions (CobrancasActions) pra conciliação, se a gente mexer no store quebra eles\n"
        "2. zoneless não, só depois do upgrade pro 18\n"
        "3. um componente por PR. o Caio revisa tudo e PR gigante ele aprova sem ler, já deu ruim",
        wait=120,
    )
    s.say(
        "Então o store fica intacto e a ponte é `store.selectSignal(...)` (existe desde o NgRx 16): o painel lê os mesmos "
        "selectors, só que como signal, e as actions continuam as mesmas — Pagamentos não percebe nada. Nos componentes de "
        "apresentação, `input()`/`output()` e `computed()` no lugar do `ngOnChanges`.\n\n"
        "Mais uma: a tabela usa `cdk-virtual-scroll-viewport`. Não tenho certeza se o virtual scroll do CDK 17.3 se comporta "
        "bem recebendo um array de um `input()` signal (ele foi pensado para `DataSource`/Observable). Deixo a tabela para "
        "depois, com um teste antes?"
    )
    s.turn_end()
    s.user("sim, tabela depois. começa pelo filtro que é o menor", wait=60)
    s.call(Call("ExitPlanMode", {"plan": PLAN},
                "User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n"
                f"Your plan has been saved to: {PLAN_PATH}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n{PLAN}",
                {"plan": PLAN, "isAgent": False, "filePath": PLAN_PATH}, secs=70))
    s.permission_mode = "default"
    s.todo([
        ("Filtro: input()/output()/computed()", "in_progress", "Migrando o filtro para signals"),
        ("Spec do filtro com setInput", "pending", "Ajustando a spec do filtro"),
        ("Painel: selectSignal para status e totais", "pending", "Trocando async por selectSignal no painel"),
        ("jest + lint + build", "pending", "Rodando jest, lint e build"),
    ])
    s.write("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.ts", '''import { Component, computed, input, output } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { StatusCobranca } from '../modelos';

@Component({
  selector: 'app-filtro-cobrancas',
  standalone: true,
  imports: [FormsModule],
  templateUrl: './filtro-cobrancas.component.html',
})
export class FiltroCobrancasComponent {
  status = input.required<StatusCobranca>();
  totais = input.required<Record<StatusCobranca, number>>();
  statusChange = output<StatusCobranca>();

  rotulo = computed(() => `${this.totais()[this.status()]} cobranças`);

  selecionar(s: StatusCobranca): void {
    this.statusChange.emit(s);
  }
}
''')
    s.read("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.html", '''<div class="filtro">
  <span class="titulo">Cobranças</span>
  <span class="rotulo">{{ rotulo }}</span>
  <nav>
    @for (s of ['todas', 'pendente', 'paga', 'vencida']; track s) {
      <button [class.ativo]="s === status" (click)="selecionar($any(s))">{{ s }}</button>
    }
  </nav>
</div>
''')
    s.edit("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.html", '''  <span class="rotulo">{{ rotulo }}</span>''', '''  <span class="rotulo">{{ rotulo() }}</span>''')
    s.edit("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.html", '''[class.ativo]="s === status"''', '''[class.ativo]="s === status()"''')
    s.bash("npx jest src/app/cobrancas/filtro 2>&1 | tail -12", '''  ● FiltroCobrancasComponent › mostra o total do status selecionado

    TypeError: component.ngOnChanges is not a function

      15 |     component.status = 'vencida';
      16 |     component.totais = { todas: 40, pendente: 12, paga: 20, vencida: 8 };
    > 17 |     component.ngOnChanges();
         |               ^

Tests:       1 failed, 1 total
Snapshots:   0 total
Time:        3.412 s''', desc="Spec do filtro", secs=14)
    s.say("Esperado: a spec ainda atribui os inputs direto e chama `ngOnChanges`. Com `input()` os valores entram por `setInput`:")
    s.read("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.spec.ts", SPEC_TS)
    s.edit("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.spec.ts", '''    component.status = 'vencida';
    component.totais = { todas: 40, pendente: 12, paga: 20, vencida: 8 };
    component.ngOnChanges();
    fixture.detectChanges();''', '''    fixture.componentRef.setInput('status', 'vencida');
    fixture.componentRef.setInput('totais', { todas: 40, pendente: 12, paga: 20, vencida: 8 });
    fixture.detectChanges();''')
    s.edit("src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.spec.ts", '''  let component: FiltroCobrancasComponent;

  beforeEach(() => {
    fixture = TestBed.createComponent(FiltroCobrancasComponent);
    component = fixture.componentInstance;
  });''', '''  beforeEach(() => {
    fixture = TestBed.createComponent(FiltroCobrancasComponent);
  });

  it('emite o status clicado', () => {
    fixture.componentRef.setInput('status', 'todas');
    fixture.componentRef.setInput('totais', { todas: 1, pendente: 1, paga: 0, vencida: 0 });
    const emitidos: string[] = [];
    fixture.componentInstance.statusChange.subscribe((s) => emitidos.push(s));
    fixture.detectChanges();
    fixture.nativeElement.querySelectorAll('button')[1].click();
    expect(emitidos).toEqual(['pendente']);
  });''')
    s.bash("npx jest src/app/cobrancas/filtro", '''PASS src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.spec.ts
  FiltroCobrancasComponent
    ✓ emite o status clicado (41 ms)
    ✓ mostra o total do status selecionado (12 ms)

Tests:       2 passed, 2 total
Snapshots:   0 total
Time:        3.208 s''', desc="Spec do filtro", secs=13)
    s.todo([
        ("Filtro: input()/output()/computed()", "completed", "Migrando o filtro para signals"),
        ("Spec do filtro com setInput", "completed", "Ajustando a spec do filtro"),
        ("Painel: selectSignal para status e totais", "in_progress", "Trocando async por selectSignal no painel"),
        ("jest + lint + build", "pending", "Rodando jest, lint e build"),
    ])
    s.say(
        "Agora o painel, só para o filtro. Uma ideia era sincronizar o status com a URL (`?status=`) num `effect()` que escreve "
        "num signal local — testei rapidinho e o Angular 17 recusa escrever signal dentro de `effect()` sem `allowSignalWrites` "
        "(NG0600). Não vale abrir essa exceção só para isso, e URL não estava no escopo; deixei de fora."
    )
    s.edit("src/app/cobrancas/painel-cobrancas.component.ts", '''    <app-filtro-cobrancas [status]="(status$ | async)!" [totais]="(totais$ | async)!"
                          (statusChange)="mudarStatus($event)" />''', '''    <app-filtro-cobrancas [status]="status()" [totais]="totais()"
                          (statusChange)="mudarStatus($event)" />''')
    s.edit("src/app/cobrancas/painel-cobrancas.component.ts", '''  status$ = this.store.select(selectStatusFiltro);
  totais$ = this.store.select(selectTotaisPorStatus);''', '''  status = this.store.selectSignal(selectStatusFiltro);
  totais = this.store.selectSignal(selectTotaisPorStatus);''')
    s.bash("npx jest src/app/cobrancas && npm run lint", '''PASS src/app/cobrancas/filtro-cobrancas/filtro-cobrancas.component.spec.ts
PASS src/app/cobrancas/tabela-cobrancas/tabela-cobrancas.component.spec.ts
PASS src/app/cobrancas/painel-cobrancas.component.spec.ts
PASS src/app/cobrancas/store/cobrancas.reducer.spec.ts

Tests:       17 passed, 17 total
Snapshots:   0 total
Time:        6.881 s

> painel-cobrancas@2.9.1 lint
> ng lint

Linting "painel-cobrancas"...

All files pass linting.''', desc="Specs de cobranças + lint", secs=40)
    s.bash("npx ng build --configuration production 2>&1 | tail -5", '''Initial chunk files   | Names         |  Raw size | Estimated transfer size
main-7QX3KZ2D.js      | main          | 612.40 kB |               148.22 kB

Application bundle generation complete. [18.204 seconds]''', desc="Build de produção", secs=30)
    s.todo([
        ("Filtro: input()/output()/computed()", "completed", "Migrando o filtro para signals"),
        ("Spec do filtro com setInput", "completed", "Ajustando a spec do filtro"),
        ("Painel: selectSignal para status e totais", "completed", "Trocando async por selectSignal no painel"),
        ("jest + lint + build", "completed", "Rodando jest, lint e build"),
    ])
    s.say(
        "PR 1 pronta no branch `signals-filtro`:\n\n"
        "- `FiltroCobrancasComponent`: `input.required()`, `output()`, `rotulo` como `computed()`; sem `ngOnChanges`.\n"
        "- Spec com `fixture.componentRef.setInput` (+1 teste para o clique).\n"
        "- Painel: `status` e `totais` via `store.selectSignal`; as actions do NgRx não mudaram.\n"
        "- jest (17), lint e build de produção ok.\n\n"
        "**O que não fiz, e por quê:**\n"
        "- Tabela: fica para a PR 2 (um componente por PR) e porque ainda não sei como o virtual scroll do CDK lida com um "
        "`input()` signal.\n"
        "- `linhas$ | async` no painel continua: é da tabela.\n"
        "- Sincronizar o status com a URL: exigiria `allowSignalWrites` num `effect`, e não estava no escopo.\n"
        "- Zoneless: combinado só depois do Angular 18."
    )
    s.turn_end()
    s.user(
        "ótimo. abro a PR e marco o Caio. a tabela fica pra semana que vem. "
        "e sobre o virtual scroll, pergunta em aberto mesmo — o Renan mexeu nisso no app de boletos, vou ver com ele",
        wait=90,
    )
    s.say("Combinado.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Angular 17.3 + NgRx migration to signals, Brazilian Portuguese; planned over several turns in plan mode (questions, answers with reasons), ExitPlanMode approved",
        "three rules with reasons in one answer (NgRx stays for the payments team, no zoneless before 18, one component per PR for Caio's review)",
        "TodoWrite through the work; a spec failing behind `| tail` after the input() change, setInput instead",
        "an effect() writing a signal tried and dropped, told only in text (NG0600, allowSignalWrites)",
        "a wrap-up listing what was NOT done and why; todo and question for a colleague (virtual scroll, Renan) at the end",
    ],
    "language": "pt",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "decision"],
         "match": [["ngrx"], ["pagamentos", "CobrancasActions"]],
         "note": "NgRx fica: o time de Pagamentos escuta as CobrancasActions para conciliação; nada de signalStore."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "decision"],
         "match": [["zoneless"], ["18"]],
         "note": "zone.js fica; zoneless só depois do upgrade para o Angular 18."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["um componente por PR"], ["Caio", "gigante"]],
         "note": "Um componente por PR: o Caio revisa tudo e PR gigante ele aprova sem ler."},
        {"id": "d1", "type": "decision",
         "match": [["selectSignal"], ["actions", "store", "Pagamentos"]],
         "note": "O painel lê os selectors com store.selectSignal em vez de select | async; store e actions ficam iguais, Pagamentos não percebe."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "project_fact", "decision"],
         "match": [["setInput"], ["input()", "ngOnChanges", "spec"]],
         "note": "Com input() as specs não podem atribuir inputs nem chamar ngOnChanges: usar fixture.componentRef.setInput."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["effect()"], ["allowSignalWrites", "NG0600"]],
         "note": "Sincronizar o status com a URL num effect() que escreve um signal falha no Angular 17 sem allowSignalWrites (NG0600); deixado de fora."},
        {"id": "t1", "type": "todo",
         "match": [["tabela"], ["semana que vem", "PR 2"]],
         "note": "Migrar TabelaCobrancasComponent na próxima PR, semana que vem."},
        {"id": "q1", "type": "open_question",
         "match": [["virtual scroll"], ["Renan", "signal"]],
         "note": "O virtual scroll do CDK 17.3 funciona com um input() signal? Letícia vê com o Renan (app de boletos)."},
        {"id": "v1", "type": "verified_command", "command": "npx jest src/app/cobrancas && npm run lint"},
        {"id": "v2", "type": "verified_command", "command": "npx ng build --configuration production"},
        {"id": "v3", "type": "verified_command", "command": "npx jest src/app/cobrancas/filtro", "required": False},
    ],
    "secrets": [],
    "forbidden": [["User has approved your plan"], ["Todos have been modified"]],
}
