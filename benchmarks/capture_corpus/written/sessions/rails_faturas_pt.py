# ruff: noqa: E501  (verbatim command output and file contents)
"""Rails billing: mark overdue invoices as delinquent (Brazilian Portuguese, AskUserQuestion)."""

from make_sessions import Session

REDIS_PASSWORD = "pX7vQ2mK9sLw4Tz8"

RAKE = '''namespace :faturas do
  desc "Marca faturas vencidas (NÃO USAR - rodava na mão em 2022)"
  task marcar_vencidas: :environment do
    Fatura.where(status: "aberta").where("vencimento < ?", Date.today).find_each do |f|
      f.update!(status: "vencida")
    end
  end
end
'''

MODEL = '''class Fatura < ApplicationRecord
  belongs_to :cliente
  has_many :eventos, class_name: "FaturaEvento", dependent: :destroy

  enum :status, { aberta: "aberta", paga: "paga", vencida: "vencida", inadimplente: "inadimplente" }

  scope :vencidas_ha, ->(dias) { vencida.where("vencimento < ?", Date.today - dias) }

  def valor_formatado
    ActiveSupport::NumberHelper.number_to_currency(valor_centavos / 100.0, unit: "R$ ", separator: ",", delimiter: ".")
  end
end
'''

SERVICE = '''module Faturas
  # Marca como inadimplentes as faturas vencidas há mais de DIAS_TOLERANCIA dias.
  # Roda todo dia útil às 6h (MarcarInadimplentesJob), antes de o financeiro conferir.
  class MarcarInadimplentes
    DIAS_TOLERANCIA = 30
    LOTE = 1_000

    def self.call(agora: Time.current) = new(agora).call

    def initialize(agora)
      @agora = agora
    end

    def call
      total = 0
      Fatura.vencidas_ha(DIAS_TOLERANCIA).in_batches(of: LOTE) do |lote|
        ids = lote.pluck(:id)
        lote.update_all(status: "inadimplente", updated_at: @agora)
        FaturaEvento.insert_all(ids.map { |id| { fatura_id: id, tipo: "inadimplente", created_at: @agora } })
        total += ids.size
      end
      total
    end
  end
end
'''

JOB = '''class MarcarInadimplentesJob
  include Sidekiq::Job
  sidekiq_options queue: :cobranca, retry: 3

  def perform
    total = Faturas::MarcarInadimplentes.call
    Rails.logger.info("[cobranca] #{total} faturas marcadas como inadimplentes")
  end
end
'''

SPEC = '''require "rails_helper"

RSpec.describe Faturas::MarcarInadimplentes do
  around { |ex| travel_to(Time.zone.parse("2026-03-09 22:30"), &ex) }

  it "marca vencidas há mais de 30 dias e registra o evento" do
    velha = create(:fatura, status: "vencida", vencimento: Date.new(2026, 2, 6))
    recente = create(:fatura, status: "vencida", vencimento: Date.new(2026, 2, 7))

    expect(described_class.call).to eq(1)
    expect(velha.reload.status).to eq("inadimplente")
    expect(recente.reload.status).to eq("vencida")
    expect(velha.eventos.pluck(:tipo)).to eq(["inadimplente"])
  end

  it "não mexe em faturas pagas" do
    paga = create(:fatura, status: "paga", vencimento: 90.days.ago.to_date)
    described_class.call
    expect(paga.reload.status).to eq("paga")
  end
end
'''


def build() -> Session:
    s = Session("rails-faturas-pt", cwd="/home/rafael/projetos/cobranca", branch="feat/inadimplencia",
                start="2026-03-09T11:20:44.090Z", version="2.1.47", slug="mellow-counting-heron")
    s.user(
        "Preciso que as faturas vencidas há mais de 30 dias virem \"inadimplente\" "
        "automaticamente. Tem um rake task velho em lib/tasks/faturas.rake que ninguém usa mais.\n\n"
        "Importante: aqui a gente não usa callback do ActiveRecord pra regra de negócio de "
        "cobrança. Coloca num service object em app/services.",
        wait=6,
    )
    s.call(s.read_call("lib/tasks/faturas.rake", RAKE), s.read_call("app/models/fatura.rb", MODEL))
    s.glob("app/services/**/*.rb", ["app/services/faturas/emitir_boleto.rb",
                                     "app/services/faturas/registrar_pagamento.rb",
                                     "app/services/clientes/importar_planilha.rb"])
    s.bash("grep -n -i -E 'sidekiq|solid_queue|whenever' Gemfile; grep -i redis .env.development config/*.yml",
           f"""\
14:gem "sidekiq", "~> 7.2"
15:gem "sidekiq-cron", "~> 1.12"
.env.development:REDIS_URL=redis://default:{REDIS_PASSWORD}@redis.interno:6379/1
config/sidekiq.yml:  :url: <%= ENV.fetch("REDIS_URL") %>""", desc="Como os jobs rodam hoje")
    s.say(
        "O projeto já tem Sidekiq com `sidekiq-cron`, e os services ficam em "
        "`app/services/faturas/`. Antes de escrever, duas coisas que mudam o desenho:"
    )
    q1 = "Como a marcação deve ser agendada?"
    q2 = "O cliente deve receber e-mail quando a fatura virar inadimplente?"
    s.ask(
        [
            {"question": q1, "header": "Agendamento",
             "options": [("Sidekiq cron (Recomendado)", "sidekiq-cron já está no Gemfile; um job diário"),
                         ("Cron do servidor + rake", "Reaproveitar lib/tasks/faturas.rake")]},
            {"question": q2, "header": "E-mail",
             "options": [("Sim", "Enviar aviso de inadimplência automaticamente"),
                         ("Não", "Só muda o status")]},
        ],
        {q1: "Sidekiq cron, mas só em dias úteis às 6h — o financeiro confere a lista logo cedo",
         q2: "Não. E-mail de cobrança aqui é sempre manual, decisão do jurídico"},
        wait=70,
    )
    s.bash("grep -n -i 'vencidas' README.md",
           "41:- ~180 mil faturas vencidas em aberto (mar/2026) — cuidado com queries sem índice em `faturas`",
           desc="Volume de faturas vencidas")
    s.say(
        "Certo: job no `sidekiq-cron` às 6h de segunda a sexta, sem e-mail.\n\n"
        "Sobre a atualização em si: o README fala em ~180 mil faturas vencidas em produção, e o "
        "job roda todo dia. Salvar uma a uma com "
        "`find_each` + `update!` levaria minutos e ainda dispararia os callbacks do modelo — "
        "justamente o que vocês evitam. Então o service atualiza em lotes de mil com "
        "`in_batches.update_all` e grava um `FaturaEvento` por fatura com `insert_all`, para a "
        "auditoria continuar sabendo quando cada uma mudou."
    )
    s.call(s.write_call("app/services/faturas/marcar_inadimplentes.rb", SERVICE),
           s.write_call("app/jobs/marcar_inadimplentes_job.rb", JOB))
    s.read("config/schedule.yml", '''emitir_boletos:
  cron: "0 5 1 * *"
  class: "EmitirBoletosJob"
  queue: cobranca
''')
    s.edit("config/schedule.yml", '''emitir_boletos:
  cron: "0 5 1 * *"
  class: "EmitirBoletosJob"
  queue: cobranca
''', '''emitir_boletos:
  cron: "0 5 1 * *"
  class: "EmitirBoletosJob"
  queue: cobranca

# Dias úteis às 6h (horário de Brasília): o financeiro confere a lista logo cedo.
marcar_inadimplentes:
  cron: "0 6 * * 1-5 America/Sao_Paulo"
  class: "MarcarInadimplentesJob"
  queue: cobranca
''')
    s.write("spec/services/faturas/marcar_inadimplentes_spec.rb", SPEC)
    s.bash("bundle exec rspec spec/services/faturas/marcar_inadimplentes_spec.rb 2>&1 | tail -25", """\
F.

Failures:

  1) Faturas::MarcarInadimplentes marca vencidas há mais de 30 dias e registra o evento
     Failure/Error: expect(described_class.call).to eq(1)

       expected: 1
            got: 2

       (compared using ==)
     # ./spec/services/faturas/marcar_inadimplentes_spec.rb:10:in `block (2 levels) in <top (required)>'

Finished in 0.41277 seconds (files took 2.31 seconds to load)
2 examples, 1 failure

Failed examples:

rspec ./spec/services/faturas/marcar_inadimplentes_spec.rb:6 # Faturas::MarcarInadimplentes marca vencidas há mais de 30 dias e registra o evento""",
           desc="Rodar o spec novo", secs=7.0)
    s.say(
        "Marcou duas em vez de uma: a fatura que vence em 07/02 completa exatamente 30 dias "
        "em 09/03, então não deveria entrar. O teste roda às 22:30 de 09/03 em São Paulo, que "
        "já é 01:30 de 10/03 em UTC — e o scope `vencidas_ha` usa `Date.today`, que ignora o "
        "`Time.zone` do Rails e pega a data do sistema (UTC aqui e no servidor). Resultado: "
        "entre 21h e meia-noite de Brasília o scope conta um dia a mais. O job das 6h não cai "
        "nessa janela, mas qualquer outro uso do scope à noite cai. `Date.current` respeita o "
        "fuso configurado."
    )
    s.edit("app/models/fatura.rb", '''  scope :vencidas_ha, ->(dias) { vencida.where("vencimento < ?", Date.today - dias) }''',
           '''  scope :vencidas_ha, ->(dias) { vencida.where("vencimento < ?", Date.current - dias) }''')
    s.bash("bundle exec rspec spec/services/faturas/marcar_inadimplentes_spec.rb 2>&1 | tail -25", """\
..

Finished in 0.39102 seconds (files took 2.28 seconds to load)
2 examples, 0 failures""", desc="Rodar o spec novo", secs=6.5)
    s.bash("bundle exec rubocop app/services app/jobs app/models/fatura.rb", """\
Inspecting 9 files
.........

9 files inspected, no offenses detected""", desc="Rubocop", secs=4.0)
    s.bash("bundle exec rspec 2>&1 | tail -4", """\

Finished in 38.7 seconds (files took 2.9 seconds to load)
611 examples, 0 failures, 3 pending""", desc="Suite inteira", secs=45.0)
    s.say(
        "Pronto:\n\n"
        "- `app/services/faturas/marcar_inadimplentes.rb` — vencidas há mais de 30 dias viram "
        "`inadimplente`, em lotes de 1.000, com um `FaturaEvento` por fatura. Sem callbacks.\n"
        "- `app/jobs/marcar_inadimplentes_job.rb` + `config/schedule.yml`: dias úteis às 6h "
        "(America/Sao_Paulo). Nenhum e-mail é enviado.\n"
        "- `Fatura.vencidas_ha` agora usa `Date.current` em vez de `Date.today` — o bug de fuso "
        "afetava qualquer uso desse scope.\n"
        "- Spec novo, suíte inteira verde (611 exemplos), rubocop limpo.\n\n"
        "Ficou para vocês decidirem:\n"
        "- O `lib/tasks/faturas.rake` antigo continua lá; dá para remover, mas não quis apagar "
        "sem confirmação.\n"
        "- \"Dias úteis\" no cron é só segunda a sexta: feriados (Carnaval, por exemplo) não "
        "são considerados. Se o financeiro não trabalha no feriado, a lista do dia seguinte vem "
        "com dois dias de faturas — não sei se isso importa para eles."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Brazilian Portuguese",
        "rule in the first prompt (no ActiveRecord callbacks)",
        "AskUserQuestion with two free-text answers that are rules",
        "decision with its why (in_batches.update_all)",
        "rspec failure behind `| tail` then pass (Date.today vs Date.current)",
        "Redis password in tool output",
        "todo and open question in the wrap-up",
    ],
    "language": "pt",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["callback"], ["ActiveRecord", "service"]],
         "note": "Não usar callbacks do ActiveRecord para regra de negócio de cobrança; usar um "
                 "service object em app/services."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint", "decision"],
         "match": [["dias úteis"], ["6h", "0 6"]],
         "note": "A marcação roda pelo sidekiq-cron só em dias úteis às 6h: o financeiro confere "
                 "a lista logo cedo."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["e-mail"], ["manual"]],
         "note": "E-mail de cobrança é sempre manual (decisão do jurídico); nada automático."},
        {"id": "d1", "type": "decision",
         "match": [["in_batches", "update_all"], ["180 mil", "callbacks", "minutos"]],
         "note": "O service atualiza em lotes (in_batches.update_all) com FaturaEvento via "
                 "insert_all, porque salvar 180 mil faturas uma a uma levaria minutos e "
                 "dispararia callbacks."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["Date.today"], ["Date.current"]],
         "note": "Fatura.vencidas_ha usava Date.today, que ignora o Time.zone do Rails (servidor "
                 "em UTC): contava um dia a mais à noite; corrigido com Date.current."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["faturas.rake", "rake"], ["remov", "apagar"]],
         "note": "O rake task antigo lib/tasks/faturas.rake pode ser removido (aguarda confirmação)."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["feriado"]],
         "note": "O cron de dias úteis não considera feriados; não se sabe se o financeiro se "
                 "importa com a lista acumulada."},
        {"id": "v1", "type": "verified_command",
         "command": "bundle exec rspec spec/services/faturas/marcar_inadimplentes_spec.rb"},
        {"id": "v2", "type": "verified_command",
         "command": "bundle exec rubocop app/services app/jobs app/models/fatura.rb"},
        {"id": "v3", "type": "verified_command", "command": "bundle exec rspec"},
    ],
    "secrets": [REDIS_PASSWORD],
    "forbidden": [["User has answered your questions"]],
}
