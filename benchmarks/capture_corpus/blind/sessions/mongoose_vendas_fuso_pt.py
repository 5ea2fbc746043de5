# ruff: noqa: E501  (verbatim command output and file contents)
"""Node/TypeScript + Mongoose 8 daily sales report counting late sales on the next day (UTC); a fixed -3h offset refused; timezone per store chosen via AskUserQuestion; a prod query refused (Brazilian Portuguese)."""

from make_sessions import Session

REL_V1 = '''import { Venda } from "../models/venda";

export interface LinhaDia {
  dia: string;
  lojaId: string;
  total: number;
  qtd: number;
}

export async function vendasPorDia(de: Date, ate: Date): Promise<LinhaDia[]> {
  return Venda.aggregate<LinhaDia>([
    { $match: { criadoEm: { $gte: de, $lt: ate }, status: "paga" } },
    {
      $group: {
        _id: {
          dia: { $dateToString: { format: "%Y-%m-%d", date: "$criadoEm" } },
          lojaId: "$lojaId",
        },
        total: { $sum: "$valorCentavos" },
        qtd: { $sum: 1 },
      },
    },
    { $project: { _id: 0, dia: "$_id.dia", lojaId: "$_id.lojaId", total: 1, qtd: 1 } },
    { $sort: { dia: 1, lojaId: 1 } },
  ]);
}
'''

MODEL_LOJA = '''import { Schema, model } from "mongoose";

const LojaSchema = new Schema({
  nome: { type: String, required: true },
  cidade: String,
  // IANA, ex. "America/Manaus". Lojas antigas (antes de 2024) não têm.
  fuso: String,
});

export const Loja = model("Loja", LojaSchema, "lojas");
'''

TEST_V1 = '''import { vendasPorDia } from "./vendas-por-dia";
import { Venda } from "../models/venda";
import { Loja } from "../models/loja";
import { conectarMemoria, desconectar } from "../../test/mongo-memoria";

beforeAll(conectarMemoria);
afterAll(desconectar);
afterEach(async () => {
  await Venda.deleteMany({});
  await Loja.deleteMany({});
});

test("venda às 23:30 em São Paulo conta no mesmo dia", async () => {
  const loja = await Loja.create({ nome: "Pinheiros", cidade: "São Paulo", fuso: "America/Sao_Paulo" });
  await Venda.create({ lojaId: loja._id, valorCentavos: 4590, status: "paga",
                       criadoEm: new Date("2026-03-11T02:30:00Z") }); // 10/03 23:30 em SP
  const linhas = await vendasPorDia(new Date("2026-03-10T03:00:00Z"), new Date("2026-03-11T03:00:00Z"));
  expect(linhas).toEqual([{ dia: "2026-03-10", lojaId: loja._id, total: 4590, qtd: 1 }]);
});
'''


def build() -> Session:
    s = Session("mongoose-vendas-fuso-pt", cwd="/home/rafael/dev/varejo-api", branch="fix/relatorio-vendas-dia",
                start="2026-03-16T13:41:02.774Z", version="2.1.58", slug="fuso-relatorio-sabia")
    s.user(
        "o relatório de vendas por dia tá errado, a Renata do financeiro reclamou que o fechamento do dia 10 não bate com o caixa das lojas. "
        "parece que as vendas da noite tão indo pro dia seguinte. dá uma olhada em src/relatorios/vendas-por-dia.ts. "
        "obs: no banco as datas ficam sempre em UTC, isso não muda, conversão só na hora de agregar/mostrar",
        wait=6,
    )
    s.call(s.read_call("src/relatorios/vendas-por-dia.ts", REL_V1), s.read_call("src/models/loja.ts", MODEL_LOJA))
    s.say(
        "É isso mesmo: o `$dateToString` está sem `timezone`, então o MongoDB formata o dia em **UTC**. Uma venda às "
        "23:30 de São Paulo (UTC-3) é 02:30 UTC do dia seguinte, e cai no dia seguinte no relatório. Tudo que é vendido "
        "depois das 21h vai pro dia errado.\n\nPrimeiro um teste que reproduz:"
    )
    s.write("src/relatorios/vendas-por-dia.test.ts", TEST_V1)
    s.bash("npx jest src/relatorios", ''' FAIL  src/relatorios/vendas-por-dia.test.ts
  ● venda às 23:30 em São Paulo conta no mesmo dia

    expect(received).toEqual(expected) // deep equality

    - Expected  - 1
    + Received  + 1

      Array [
        Object {
    -     "dia": "2026-03-10",
    +     "dia": "2026-03-11",
          "lojaId": "65f1c2a9e4b0a1d2c3f4a5b6",
          "qtd": 1,
          "total": 4590,
        },
      ]

      18 |   const linhas = await vendasPorDia(new Date("2026-03-10T03:00:00Z"), new Date("2026-03-11T03:00:00Z"));
    > 19 |   expect(linhas).toEqual([{ dia: "2026-03-10", lojaId: loja._id, total: 4590, qtd: 1 }]);
         |                  ^
      20 | });

      at Object.<anonymous> (src/relatorios/vendas-por-dia.test.ts:19:18)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 total
Snapshots:   0 total
Time:        3.912 s''', code=1, desc="Teste do relatório", secs=8)
    s.say("Reproduzido: a venda de 10/03 23:30 aparece como 11/03. Correção mais direta: deslocar a data em -3 h antes de formatar.")
    s.edit("src/relatorios/vendas-por-dia.ts", '''          dia: { $dateToString: { format: "%Y-%m-%d", date: "$criadoEm" } },''', '''          dia: {
            $dateToString: {
              format: "%Y-%m-%d",
              date: { $subtract: ["$criadoEm", 3 * 60 * 60 * 1000] }, // UTC-3 (Brasília)
            },
          },''')
    s.bash("npx jest src/relatorios 2>&1 | tail -5", '''Test Suites: 1 passed, 1 total
Tests:       1 passed, 1 total
Snapshots:   0 total
Time:        3.604 s
Ran all test suites matching /src\\/relatorios/i.''', desc="Teste do relatório", secs=7)
    s.say("Passou com o deslocamento fixo de -3 h.")
    s.turn_end()
    s.user(
        "não, -3 fixo não. temos 3 lojas em Manaus que são -4, e o governo volta e meia fala em trazer o horário de verão de volta. "
        "tem o campo fuso na loja, não tem?",
        wait=40,
    )
    s.say(
        "Tem razão, o deslocamento fixo erra Manaus por uma hora e quebra se o horário de verão voltar. Desfaço e uso o "
        "`timezone` do próprio MongoDB com o nome IANA, que já sabe as regras de cada fuso. O modelo `Loja` tem `fuso`, "
        "mas o comentário diz que lojas antigas não têm — preciso decidir o que fazer com elas:"
    )
    s.edit("src/relatorios/vendas-por-dia.ts", '''          dia: {
            $dateToString: {
              format: "%Y-%m-%d",
              date: { $subtract: ["$criadoEm", 3 * 60 * 60 * 1000] }, // UTC-3 (Brasília)
            },
          },''', '''          dia: { $dateToString: { format: "%Y-%m-%d", date: "$criadoEm" } },''')
    s.bash("mongosh --quiet \"$MONGO_URL_HML\" --eval 'db.lojas.aggregate([{$group: {_id: \"$fuso\", n: {$sum: 1}}}]).toArray()'", '''[
  { _id: 'America/Sao_Paulo', n: 41 },
  { _id: null, n: 12 },
  { _id: '', n: 5 },
  { _id: 'America/Manaus', n: 3 },
  { _id: 'America/Recife', n: 2 }
]''', desc="Fusos das lojas no dump de homologação")
    s.say("12 lojas sem o campo e 5 com `fuso` vazio (`''`) — essas vieram do formulário do admin, que salva string vazia. 17 no total sem fuso utilizável.")
    q = "O que fazer com as 17 lojas sem fuso cadastrado?"
    s.ask(
        [{"question": q, "header": "Lojas sem fuso",
          "options": [("Assumir America/Sao_Paulo", "Padrão no relatório quando a loja não tem fuso"),
                      ("Preencher o campo antes", "Migração que grava o fuso nas 17 lojas; o relatório exige o campo")]}],
        {q: "assume São Paulo no relatório, todas as lojas sem fuso são do Sudeste (são as antigas). mas deixa um aviso no log pra gente preencher depois"},
    )
    s.grep("fuso", content='''src/models/venda.ts:14:  fuso: { type: String, default: null }, // PDV v1 mandava; não usado''', path="src/models")
    s.say("Ok. Um cuidado: `Venda` já tem um campo `fuso` próprio (legado do PDV v1), então o fuso da loja vai num campo com outro nome, `_fusoLoja`, para não sobrescrever o da venda no meio do pipeline.")
    s.edit("src/relatorios/vendas-por-dia.ts", '''  return Venda.aggregate<LinhaDia>([
    { $match: { criadoEm: { $gte: de, $lt: ate }, status: "paga" } },
    {
      $group: {
        _id: {
          dia: { $dateToString: { format: "%Y-%m-%d", date: "$criadoEm" } },''', '''  // Datas ficam em UTC no banco; o dia é calculado no fuso da loja (IANA), que o MongoDB
  // converte com as regras de cada fuso (Manaus é -4; horário de verão pode voltar).
  // Lojas antigas sem `fuso` usam FUSO_PADRAO (todas do Sudeste). `_fusoLoja` e não `fuso`:
  // Venda tem um campo legado `fuso` (PDV v1).
  return Venda.aggregate<LinhaDia>([
    { $match: { criadoEm: { $gte: de, $lt: ate }, status: "paga" } },
    { $lookup: { from: "lojas", localField: "lojaId", foreignField: "_id", as: "loja", pipeline: [{ $project: { fuso: 1 } }] } },
    { $set: { _fusoLoja: { $ifNull: [{ $first: "$loja.fuso" }, FUSO_PADRAO] } } },
    {
      $group: {
        _id: {
          dia: { $dateToString: { format: "%Y-%m-%d", date: "$criadoEm", timezone: "$_fusoLoja" } },''')
    s.edit("src/relatorios/vendas-por-dia.ts", '''export interface LinhaDia {''', '''const FUSO_PADRAO = "America/Sao_Paulo";

export interface LinhaDia {''')
    s.edit("src/relatorios/vendas-por-dia.test.ts", '''  expect(linhas).toEqual([{ dia: "2026-03-10", lojaId: loja._id, total: 4590, qtd: 1 }]);
});''', '''  expect(linhas).toEqual([{ dia: "2026-03-10", lojaId: loja._id, total: 4590, qtd: 1 }]);
});

test("Manaus (-4): venda às 23:30 local conta no mesmo dia", async () => {
  const loja = await Loja.create({ nome: "Adrianópolis", cidade: "Manaus", fuso: "America/Manaus" });
  await Venda.create({ lojaId: loja._id, valorCentavos: 1200, status: "paga",
                       criadoEm: new Date("2026-03-11T03:30:00Z") }); // 10/03 23:30 em Manaus
  const linhas = await vendasPorDia(new Date("2026-03-10T04:00:00Z"), new Date("2026-03-11T04:00:00Z"));
  expect(linhas.map((l) => l.dia)).toEqual(["2026-03-10"]);
});

test("loja sem fuso usa São Paulo", async () => {
  const loja = await Loja.create({ nome: "Centro", cidade: "Campinas" });
  await Venda.create({ lojaId: loja._id, valorCentavos: 990, status: "paga",
                       criadoEm: new Date("2026-03-11T01:00:00Z") }); // 10/03 22:00 em SP
  const linhas = await vendasPorDia(new Date("2026-03-10T03:00:00Z"), new Date("2026-03-11T03:00:00Z"));
  expect(linhas.map((l) => l.dia)).toEqual(["2026-03-10"]);
});

test("loja com fuso vazio (admin) usa São Paulo", async () => {
  const loja = await Loja.create({ nome: "Cambuí", cidade: "Campinas", fuso: "" });
  await Venda.create({ lojaId: loja._id, valorCentavos: 990, status: "paga",
                       criadoEm: new Date("2026-03-11T01:00:00Z") }); // 10/03 22:00 em SP
  const linhas = await vendasPorDia(new Date("2026-03-10T03:00:00Z"), new Date("2026-03-11T03:00:00Z"));
  expect(linhas.map((l) => l.dia)).toEqual(["2026-03-10"]);
});''')
    s.bash("npx jest src/relatorios", ''' FAIL  src/relatorios/vendas-por-dia.test.ts
  ✓ venda às 23:30 em São Paulo conta no mesmo dia (412 ms)
  ✓ Manaus (-4): venda às 23:30 local conta no mesmo dia (38 ms)
  ✓ loja sem fuso usa São Paulo (29 ms)
  ✕ loja com fuso vazio (admin) usa São Paulo (41 ms)

  ● loja com fuso vazio (admin) usa São Paulo

    MongoServerError: PlanExecutor error during aggregation :: caused by :: unrecognized time zone identifier: ""

      at Connection.onMessage (node_modules/mongodb/src/cmap/connection.ts:413:18)
      at src/relatorios/vendas-por-dia.ts:19:16

Test Suites: 1 failed, 1 total
Tests:       1 failed, 3 passed, 4 total
Snapshots:   0 total
Time:        4.118 s''', code=1, desc="Testes do relatório", secs=8)
    s.say(
        "Três passam; a loja com `fuso: \"\"` derruba a agregação **inteira** (`unrecognized time zone identifier: \"\"`) — "
        "ou seja, em produção uma única loja cadastrada pelo admin faria o relatório todo dar erro. `$ifNull` só cobre "
        "null/ausente, não string vazia. Trato os dois casos:"
    )
    s.edit("src/relatorios/vendas-por-dia.ts", '''    { $set: { _fusoLoja: { $ifNull: [{ $first: "$loja.fuso" }, FUSO_PADRAO] } } },''', '''    // $ifNull não cobre "" (o formulário do admin salva string vazia): "" também vira o padrão.
    { $set: { _fusoLoja: { $ifNull: [{ $first: "$loja.fuso" }, ""] } } },
    { $set: { _fusoLoja: { $cond: [{ $eq: ["$_fusoLoja", ""] }, FUSO_PADRAO, "$_fusoLoja"] } } },''')
    s.bash("npx jest src/relatorios", ''' PASS  src/relatorios/vendas-por-dia.test.ts
  ✓ venda às 23:30 em São Paulo conta no mesmo dia (398 ms)
  ✓ Manaus (-4): venda às 23:30 local conta no mesmo dia (35 ms)
  ✓ loja sem fuso usa São Paulo (33 ms)
  ✓ loja com fuso vazio (admin) usa São Paulo (30 ms)

Test Suites: 1 passed, 1 total
Tests:       4 passed, 4 total
Snapshots:   0 total
Time:        3.987 s''', desc="Testes do relatório", secs=8)
    s.say("Os quatro passam: São Paulo, Manaus, loja sem o campo e loja com fuso vazio.")
    s.turn_end()
    s.user("ok, tá bom assim. roda o relatório de março no cluster pra comparar com o caixa", wait=50)
    s.bash_rejected("mongosh --quiet \"$MONGO_URL_PROD\" --file scripts/relatorio-marco.js", desc="Relatório de março em produção",
                    reason="opa, não, produção não. nada de consulta daqui no cluster de prod, nem leitura: esse relatório pesado já derrubou o primário uma vez em dezembro. usa o dump de homolog, é de sexta")
    s.bash("mongosh --quiet \"$MONGO_URL_HML\" --file scripts/relatorio-marco.js | head -6", '''dia         antes     depois    caixa
2026-03-09  R$ 182.440,10  R$ 179.902,30  R$ 179.902,30
2026-03-10  R$ 171.318,55  R$ 174.006,85  R$ 174.006,85
2026-03-11  R$ 168.990,00  R$ 166.301,70  R$ 166.301,70
2026-03-12  R$ 177.210,40  R$ 177.115,90  R$ 177.115,90
2026-03-13  R$ 190.884,25  R$ 191.640,05  R$ 191.640,05''', desc="Relatório de março no dump de homologação")
    s.bash("npx jest && npx tsc --noEmit", '''Test Suites: 14 passed, 14 total
Tests:       96 passed, 96 total
Snapshots:   0 total
Time:        18.402 s
Ran all test suites.''', desc="Suite inteira + typecheck", secs=30)
    s.say(
        "No dump de homologação (sexta) o relatório corrigido bate com o caixa em todos os dias de 09 a 13/03; antes "
        "diferia em todos. Suíte inteira e `tsc` verdes.\n\n"
        "Resumo:\n"
        "- **Causa:** `$dateToString` sem `timezone` → dia em UTC; vendas depois das 21h (SP) iam para o dia seguinte.\n"
        "- **Correção:** o dia é calculado no fuso IANA de cada loja (`$lookup` em `lojas`); lojas sem `fuso` usam "
        "`America/Sao_Paulo`. Datas continuam em UTC no banco.\n"
        "- **Descartado:** deslocamento fixo de -3 h (Manaus é -4, horário de verão pode voltar).\n"
        "- **Segundo bug:** 5 lojas têm `fuso: \"\"` (formulário do admin); uma só derrubava o relatório inteiro "
        "(`unrecognized time zone identifier`). String vazia agora também vira o padrão.\n\n"
        "Não fiz: o aviso no log para lojas sem fuso que você pediu — o relatório é uma agregação só, teria que ser uma "
        "consulta à parte na inicialização. E as 17 lojas continuam sem `fuso` cadastrado."
    )
    s.turn_end()
    s.user(
        "beleza. o aviso eu faço amanhã junto com a migração pra preencher o fuso das 17. e não sei se o financeiro quer o "
        "consolidado por fuso da loja ou tudo em horário de Brasília, vou perguntar pra Renata",
        wait=70,
    )
    s.say("Combinado.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Node/TypeScript API with Mongoose 8 and Jest + mongodb-memory-server, Brazilian Portuguese",
        "a rule in the first prompt (dates always UTC in the DB, conversion only when aggregating/showing)",
        "$dateToString without timezone: late sales counted on the next day; a reproduction test with the diff in the middle of the output",
        "a fixed -3h offset tried, green, refused by the user with reasons (Manaus -4, daylight saving may return), reverted",
        "AskUserQuestion answered in free text: stores without fuso default to São Paulo (all in the Southeast), plus a log warning",
        "a second bug found by a new test: an empty fuso string from the admin form fails the whole aggregation (MongoServerError), $ifNull does not cover it",
        "a query on the prod cluster rejected with a story (heavy report took the primary down in December); homolog dump instead",
        "wrap-up saying what was not done; todo the user takes and a question for a colleague (Renata, finance)",
    ],
    "language": "pt",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["UTC"], ["banco"], ["agregar", "mostrar", "conversão"]],
         "note": "No banco as datas ficam sempre em UTC; conversão de fuso só na hora de agregar/mostrar."},
        {"id": "b1", "type": "bug_note",
         "match": [["$dateToString", "timezone"], ["UTC"], ["dia seguinte", "21h"]],
         "note": "O relatório de vendas por dia usava $dateToString sem timezone (UTC): vendas depois das 21h em SP caíam no dia seguinte."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint"],
         "match": [["-3"], ["Manaus", "horário de verão"]],
         "note": "Deslocamento fixo de -3 h recusado: 3 lojas em Manaus são -4 e o horário de verão pode voltar."},
        {"id": "d1", "type": "decision",
         "match": [["fuso"], ["loja"], ["Sao_Paulo", "São Paulo"], ["Sudeste", "antigas"]],
         "note": "O dia é calculado no fuso IANA de cada loja; as 17 lojas sem fuso (antigas, todas do Sudeste) usam America/Sao_Paulo."},
        {"id": "b2", "type": "bug_note",
         "match": [["vazio", "string vazia", "\"\""], ["admin"], ["unrecognized time zone", "relatório inteiro", "$ifNull"]],
         "note": "5 lojas têm fuso vazio (o formulário do admin salva string vazia); uma só derrubava a agregação inteira com 'unrecognized time zone identifier'; $ifNull não cobre \"\", agora vira o padrão."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["Venda"], ["fuso"], ["PDV v1", "legado"]],
         "note": "Venda tem um campo legado fuso (default null, PDV v1); o fuso da loja vai em _fusoLoja na agregação."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["prod"], ["primário", "dezembro"], ["homolog"]],
         "note": "Nada de consulta daqui no cluster de produção, nem leitura: um relatório pesado já derrubou o primário em dezembro; usar o dump de homologação."},
        {"id": "t1", "type": "todo",
         "match": [["aviso"], ["17", "migração"]],
         "note": "Rafael faz amanhã o aviso no log e a migração que preenche o fuso das 17 lojas."},
        {"id": "q1", "type": "open_question",
         "match": [["consolidado"], ["Renata"]],
         "note": "O financeiro quer o consolidado por fuso da loja ou tudo em horário de Brasília? Perguntar para a Renata."},
        {"id": "v1", "type": "verified_command", "command": "npx jest && npx tsc --noEmit"},
        {"id": "v2", "type": "verified_command", "command": "npx jest src/relatorios"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "mongosh --quiet \"$MONGO_URL_HML\" --file scripts/relatorio-marco.js"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["User has answered"]],
}
