"""Words that make a sentence a person typed a lasting rule, and those that only look like one.

A rule is something to follow in all future work: said as lasting ("from now on", "always"),
as an obligation or a prohibition in a short sentence, as a preference, with emphasis, or as a
team's convention with a schedule. What never happens, what the person did themselves and the
everyday "don't worry" forbid nothing and keep a sentence from becoming a rule.
"""

from __future__ import annotations

import re

from .words import ZH_LATER, _words

# A rule for all future work: the strongest sign that a sentence is a rule, not a request.
_LASTING = _words(
    r"\balways\b", r"\bnever\b(?! ?mind)", r"\bfrom now on\b", r"\bgoing forward\b",
    r"\bin (the )?future\b",
    r"\bevery time (you|we|someone|anyone|anybody|somebody|a |an )", r"\bwhenever (you|we)\b",
    r"\bza każdym razem,? (jak|gdy) (ktoś|ktos|dodajemy)",
    r"\bin this (repo|repository|project|codebase|team)\b",
    r"\bin our (repo|codebase|project|team)\b", r"\bby default\b", r"\bas a rule\b",
    r"\bat all times\b", r"\bno matter what\b", r"\bon purpose\b", r"\bdeliberately\b",
    r"\bby design\b", r"\bintentionally\b",
    # everything of a kind, for good: "everything in prod gets protect: true"
    r"\beverything (in|on|under|touching|that touches|talking to) \S+( \S+){0,3} (gets|has|is|"
    r"stays|goes|must)\b",
    r"\balles (in|auf) \S+ (bekommt|hat|ist|muss)\b", r"\btout (en|sur|dans) \S+ (a|doit|est)\b",
    r"\btodo (en|lo de) \S+ (lleva|tiene|debe|va)\b", r"\btudo (em|no|na) \S+ (leva|tem|deve)\b",
    # a state to keep: "and it stays that way", "パーサは今のままで"
    r"\b(it|that|this) (stays|remains) (that way|so|as it is|as is)\b", r"\bkeep it that way\b",
    r"\b(und )?(das|es) bleibt (so|dabei)\b", r"\b(soll|muss) (auch )?so bleiben\b",
    r"\bshould (stay|remain) (that way|as it is|as is)\b", r"\breste(ra)? comme (ça|ca)\b",
    r"\bse (queda|mantiene) así\b", r"\b(fica|continua) assim\b", r"так и остав",
    r"\bresta così\b", r"保持(不变|现状|原样)", r"今の.{0,20}のまま(で|に)", r"のままにして",
    # ru
    r"всегда", r"никогда", r"с этого момента", r"отныне", r"впредь", r"в дальнейшем",
    r"завжди", r"ніколи", r"відтепер", r"надалі", r"з цього моменту",  # uk
    # "--reporter=line et la trace, comme d'hab": the way it is always done
    r"\bas usual\b", r"\bcomme d'hab(itude)?\b", r"\bwie immer\b", r"\bcomo siempre\b",
    r"\bcomo sempre\b", r"\bкак обычно\b", r"\bcome al solito\b", r"和平时一样", r"いつも通り",
    r"каждый раз", r"(в )?(этом|этого|нашем|нашего) (репо|репозитори|проект)",
    r"у нас (принято|так)",
    # the language a team writes in: "ревью у нас на английском", "commits are in English"
    r"(ревью|коммит\w*|комментари\w*|документаци\w*|описани\w*) (у нас|пишем|пишутся|"
    r"только) (на |по-)(английском|русском|английски|русски)",
    r"\b(commits?|commit messages?|reviews?|comments|docs|documentation|pr descriptions?)"
    r"( here)? (are|is|go|must be|should be|stay)( written)? in (english|german|french|"
    r"spanish)\b",
    # de
    r"\bimmer\b(?! noch)", r"\bniemals\b",
    # German "nie" (never), not the Polish "nie" (not): no Polish letters in the sentence
    r"\bnie\b(?![^.!?\n]*[ąęłńśźżć])", r"\bab (jetzt|sofort)\b", r"\bvon nun an\b",
    r"\bkünftig\b", r"\bin zukunft\b", r"\bgrundsätzlich\b", r"\bjedes mal\b",
    # "here we use Flyway": how this project does things
    r"\bhere we (use|don't|do not|never|always)\b", r"\bqui (usiamo|si usa|non usiamo)\b",
    r"\bici on (utilise|n'utilise)\b", r"\bhier (nutzen|verwenden) wir\b",
    r"\baquí (usamos|no usamos)\b", r"\baqui (usamos|a gente usa|não usamos)\b",
    r"\b(in )?(diesem|dieses|unserem) (repo|projekt)", r"\bbei uns\b",
    # "aquí/acá" alone is "here" ("incluye aquí el código"); a verb after it makes it ours
    r"\b(aquí|aqui|acá|aca),? (no )?(se )?(usa|usamos|trabajamos|hacemos|va|van|corre|"
    r"corren|todo|nada|nunca|siempre|solo|sólo)\b",
    # fr
    # "toujours" is "always" before an infinitive or after an imperative, else "still"
    r"\btoujours (\w+er|\w+ir|\w+re)\b", r"\b\w+(e|ez) toujours\b", r"\bjamais\b",
    r"\bdésormais\b", r"\bdorénavant\b",
    r"\bà partir de maintenant\b", r"\bà l'avenir\b", r"\bchaque fois\b",
    r"\b(dans ce|de ce|du) (dépôt|projet|repo)\b", r"\bchez nous\b", r"\bici,? tout\b",
    # es / pt
    r"\bsiempre\b", r"\bnunca\b", r"\ba partir de ahora\b", r"\bde ahora en adelante\b",
    r"\ben adelante\b", r"\bcada vez\b", r"\ben este (repo|proyecto)\b",
    r"\bsempre\b", r"\ba partir de agora\b", r"\bdaqui (pra|para) frente\b",
    r"\bneste (repo|projeto)\b", r"\btoda vez\b",
    # it / pl / ko
    r"\bmai\b", r"\bd'ora in poi\b", r"\bda ora in poi\b", r"\bda noi\b",
    r"\bin questo (repo|progetto)\b", r"\bnigdy\b", r"\bzawsze\b", r"\bod teraz\b",
    r"\bu nas\b", r"\bw tym (repo|projekcie)\b", r"항상", r"절대", r"앞으로", r"매번", r"우리 팀",
    # tr
    r"\bher zaman\b", r"\basla\b", r"\bhiçbir zaman\b", r"\bbundan (sonra|böyle)\b", r"\bdaima\b",
    r"\bher seferinde\b", r"\bbu (repo|proje)(da|de)\b",
    # hi (Hinglish)
    r"\bhamesha\b", r"\bkabhi (bhi )?mat\b", r"\b(aaj|ab|aage) se\b",
    r"\bis (repo|project) (mein|me)\b",
    # id (Indonesian, Malay)
    r"\bselalu\b", r"\bmulai (sekarang|hari ini|dari sekarang)\b", r"\bke ?depan(nya)?\b",
    r"\bseterusnya\b", r"\bsetiap kali\b", r"\bjangan pernah\b", r"\btidak pernah boleh\b",
    r"\b(di|dalam) (repo|proyek|project|codebase) (ini|kita)\b", r"\bdi (tim|kantor) kita\b",
    # zh / ja
    r"总是", r"始终", r"一律", r"永远", ZH_LATER, r"今后", r"从现在开始", r"从今以后", r"每次",
    r"(这个|我们的)?(仓库|项目)里", r"このリポジトリ", r"このプロジェクトでは",
    r"常に", r"いつも", r"必ず", r"絶対に", r"決して", r"今後", r"これから", r"以降", r"毎回",
    # a rule for each time a kind of change is made: "if you change anything under proto/
    # you have to run make gen", "si tocas api/openapi.yaml, regenera el cliente"
    r"\b(if|when|whenever) (you|we|anyone|someone|somebody) (ever )?(change|touch|modify|edit|"
    r"update|add|bump|rename|delete|remove)\b",
    r"\bsi (tu )?(modifies|touches|changes|ajoutes)\b", r"\bsi (tocas|cambias|modificas|añades)\b",
    r"\bse (você )?(mexer|alterar|mudar|mexe|altera|muda)\b",
    r"\bwenn (du|ihr|jemand) \S+( \S+){0,4} (änderst|anfasst|änderst|änderts?|hinzufügst)\b",
    r"если (ты |вы )?(меняешь|трогаешь|правишь|поменяешь|изменишь|меняете|трогаете)",
    r"如果(你)?(改了|修改了?|动了)", r"(変更|修正|追加)したら", r"(触|いじ|変え)っ?たら",
    # a release window: "code freeze until the 1st", "Gel du code le 15 décembre"
    r"\b(code|feature)[- ]?freeze\b", r"\bgel du code\b", r"\bcongela(mos|r)\b",
    r"\bcongelamento\b", r"\bonly (bug ?)?fixes\b", r"\bnur noch (bug)?fixes\b",
    r"\buniquement des correctifs\b", r"\bsolo (bug)?fixes\b", r"\bsó correç",
    r"на будущее", r"теперь только",
    # every new one of a kind: "all new endpoints need `@audited`", "qualquer dependência nova"
    # (with what they need: "all new tests pass" is a status, not a rule)
    r"\b(all|every|any) new \w+( \w+)? (needs?|must|should|has to|have to|goes|go|gets?|"
    r"requires?)\b", r"\b(все|любые|каждый) нов\w+ \w+( \w+)? (должн|нужн|только|через|идут)",
    r"\b(alle|jede[nrs]?) neue\w* \w+( \w+)? (müssen|muss|brauch|kommen|gehör|soll)",
    r"\b(tous les|toutes les|toute) nouv\w+ \w+( \w+)? (doi|passent|vont|faut)",
    r"\b(todos los|todas las) nuev\w+ \w+( \w+)? (deben|tienen|van|llevan)",
    r"\bcualquier \w+ nuev", r"\b(todos os|todas as) nov\w+ \w+( \w+)? (devem|têm|vão|precisam)",
    r"\bqualquer \w+ nov", r"所有新\S{0,12}(都要|必须|要|得)", r"新しい\S{0,12}(には|は)?全部",
)
# Obligation and prohibition: a rule when the sentence is short and not a one-off request.
# A quantity with its unit: what a budget or a limit is stated in.
_BUDGET = (r"\d+\s?(%|ms|мс|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|"
           r"[kmg]b|k|px|rps|retries|times|минут\w*|секунд\w*|час\w*|дн\w*|дней|"
           r"minuten|sekunden|stunden|tage|minutos|segundos|horas|días|dias|heures|jours|"
           r"分钟|秒|小时|天|分|時間|日)(?!\w)")

# A time of day or week a rule may name: "23:00", "11pm", "noon", "Friday", "business hours".
_WHEN = (r"(\d{1,2}([:.]\d\d\s*(h|uhr|am|pm)?|\s*(h|uhr|am|pm|часов))\b|midnight|noon|"
         r"business hours|"
         r"weekends?|(mon|tues|wednes|thurs|fri|satur|sun)day|полуночи|полудня)")
# Up to a few words of a sentence, a path's dots included ("conf/nightly.yaml").
_SPAN = r"(?:[^.!?\n]|\.(?=\S)){0,60}?"
# Who does it instead, said when turning down a command: "las migraciones las aplica el CI
# cuando se mergea a main", "the pipeline deploys that on merge" — a standing rule about the
# command, not a one-off refusal.
DONE_ELSEWHERE_RE = re.compile(_words(
    r"\b(ci|the pipeline|jenkins|github actions|gitlab ci|argo ?cd|the platform team|the dbas?)"
    r"\b[^.;]{0,20}\b(applies|runs|deploys|does|handles|publishes|releases|takes care of)\b",
    r"\b(las?|los?|lo) (aplica|aplican|corre|corren|despliega|hace|hacen|publica) (el|la|los) "
    r"(ci|pipeline|jenkins|dba)\b",
    r"\b(o|a) (ci|pipeline|jenkins) (aplica|roda|faz|publica|sobe)\b",
    r"\bc'est (la ci|le pipeline|jenkins) qui\b",
    r"\b(macht|übernimmt|erledigt|deployt) (die|das|der) (ci|pipeline|jenkins)\b",
    r"\b(делает|применяет|катит|накатывает) (ci|пайплайн|дженкинс)\b",
    r"(CI|流水线|pipeline)(会)?(来)?(做|跑|执行|部署|应用)",
    r"(CI|パイプライン)(が|で)(適用|実行|デプロイ)",
), re.IGNORECASE)
# Work held to the night: "reindex em prod só de madrugada", "deploys only overnight" — a
# rule, unless it tells when a problem shows ("hydration mismatch, solo por la noche").
NIGHT_WINDOW_RE = re.compile(_words(
    r"\bonly (at night|overnight|on weekends|at weekends)\b",
    r"\b(só|somente|apenas) (de madrugada|à noite|de noite|no fim de semana)\b",
    r"\bsolo (de madrugada|de noche|por la noche|en fin de semana)\b",
    r"\b(seulement|uniquement) (la nuit|de nuit|le week-end)\b", r"\bnur (nachts|am wochenende)\b",
    r"\bтолько (ночью|по ночам|на выходных)\b", r"只(在|能在)?(夜里|晚上|夜间|深夜|周末)",
    r"(夜間|深夜)(のみ|だけ)",
), re.IGNORECASE)
_OBLIGATION = _words(
    r"\bmust\b", r"\bmustn't\b", r"\bdon't\b", r"\bdont\b", r"\bdo not\b",
    r"\bshould never\b",
    # id: "harus", "wajib", "jangan", "nggak boleh"
    r"\bharus\b", r"\bwajib\b", r"\bjangan\b", r"\b(tidak|tak|nggak|ngga|gak|ga) boleh\b",
    r"\bdilarang\b", r"\b(cuma|hanya) boleh\b",
    # tr: a negative imperative of the verbs a rule forbids with, "-meli/-malı", not wanted
    r"\b(etme|yapma|dokunma|elleme|kullanma|değiştirme|ekleme|silme|bozma|yükseltme|"
    r"commitleme|pushlama|kaldırma)\b", r"\b\w{1,30}(meyin|mayın)\b",
    r"\b\w{1,30}(malı|meli)(yız|dır|sın)?\b",
    r"\bzorunda(yız|sın)?\b", r"\b(istemiyoruz|istemiyorum|istenmiyor)\b",
    # hi: "mat chhedo", "... hona chahiye", "zaroori hai"
    r"\bmat \w{1,30}(o|na|ein|iye)\b", r"\b(hona|karna|rehna) chahiye\b", r"\bzaroori hai\b",
    # a value kept, with its reason: "et on reste à 30s, la CI est facturée à la minute"
    r"\bon reste (à|sur|avec|en)\b", r"\bwe('ll| will)? (stay|stick) (at|with|on)\b",
    r"\bwir bleiben (bei|auf)\b", r"\bnos quedamos (con|en)\b", r"\bficamos (com|no|na|em)\b",
    r"\bоста(ёмся|емся) (на|с|при)\b",
    # one language, tool or way and no other: "we are using typescript only", "pnpm only"
    r"\bwe(?:'re| are)? (?:using|use|write|writing) [\w.+#/-]+(?: [\w.+#/-]+)? only\b",
    # where all of a kind goes, and where not: "all Spark settings go in conf/nightly.yaml, not
    # in the code", "Все настройки Spark — в conf/nightly.yaml, не в коде" (a dash or a verb
    # of place before it: not "all tests pass in CI, not locally")
    r"^\W*(all|every|each)\b" + _SPAN + r"(\b(go|goes|live|lives|belong|belongs|stay|stays|"
    r"sit|sits)\s+|[—–:]\s*)(in|into|under|through|via)\b" + _SPAN + r"\s(not|never)\s+"
    r"(in|into|under|through|via)\b",
    r"^\W*(все|всё|каждый|каждая|каждое)\s" + _SPAN + r"((хран\w+|лежат|живут|идут)\s+|"
    r"[—–:]\s*)(в|во|через)\s" + _SPAN + r"\sне\s+(в|во|через)\s",
    r"^\W*(alle|jede[rsn]?)\b" + _SPAN + r"((gehören|kommen|liegen|stehen|wohnen)\s+|"
    r"[—–:]\s*)(in|im|über|ins)\b" + _SPAN + r"\snicht\s+(in|im|über|ins)\b",
    r"^\W*(tou(te)?s?|chaque)\b" + _SPAN + r"((vont|va|vivent|restent|passent)\s+|[—–:]\s*)"
    r"(dans|en|via|par)\b" + _SPAN + r"\s(pas|jamais)\s+(dans|en|via|par)\b",
    r"^\W*(todos|todas|cada)\b" + _SPAN + r"((van|va|viven|quedan|vão|ficam|moram)\s+|"
    r"[—–:]\s*)(en|em|no|na|nos|nas|por|via)\b" + _SPAN + r"\s(no|não|nunca)\s+"
    r"(en|em|no|na|nos|nas|por)\b",
    # the same said in passing, one place named: "и все настройки спарка в conf/nightly.yaml,
    # не в коде", "and all secrets in .env, not in the code"
    r"(^|\b(and|also|plus|и|а|но|только|und|et|y|e)\s+)(all|все|всё|alle|tous|toutes|todos|"
    r"todas)\s+\w+(\s+\w+)?\s+(in|into|under|в|во|im|dans|en|em|no|na)\s+\S+,?\s+(not|never|"
    r"не|nicht|pas|no|não|nunca)\s+(in|into|under|в|во|im|dans|en|em|no|na)\s+\w+",
    # a thing of the product that is not to be: "the auth command should not exist"
    r"\bshould(?:n't| not) (?:exist|be there)\b", r"\bthere should(?:n't| not)? be no\b",
    # a habit with its moment: "make sure to run the linter with autofix after a batch"
    r"\bmake sure (?:to |you |we )?(?:always )?(?:run|use|add|keep|call|check|update|format|"
    r"lint)\b[^.!?]*\b(?:after|before|whenever|every time|each time)\b",
    # what to do when a case comes up: "if you think the server has an issue, note it and
    # move on"
    r"\bif you (?:think|see|find|hit|notice|run into|suspect)\b[^.!?]*\b(?:note it|move on|"
    r"skip it|just skip|leave it|tell me|let me know|ask me)\b",
    # what may not come in: "we can't ship anything with GPL deps", "GPLの依存は入れられません"
    r"\b(we )?(can't|cannot|can not) (use|ship|add|include|pull in|depend on|bring in)\b",
    r"\bdürfen kein", r"\bon ne peut pas (utiliser|ajouter|inclure|mettre)\b",
    r"\binterdiction de\b", r"\bno (podemos|puedes|se puede) (usar|meter|añadir|agregar)\b",
    r"\bnão (pode|podemos|dá pra) (usar|colocar|adicionar|meter)\b", r"\bобязан",
    r"\bне (тащим|берём|берем|юзай|юзаем|добавляем|пушим|мержим|деплоим|коммитим|"
    r"используем)\b", r"ничего не (меняем|трогаем|добавляем|мержим)",
    r"入れられません", r"使えません", r"都要", r"都得", r"(ダメ|だめ)です", r"\bé exigência\b",
    r"\bno se (mergea|hace|sube|despliega|usa|toca|commitea)\b", r"\b(usa|use|usem|usar) só\b",
    # a platform the code is held to: "has to keep working on Python 3.8", "an node 16 gebunden"
    r"\b(has|have|needs?) to keep (working|running|building|compiling)\b",
    r"\b(keep|continue) (working|running|building|compiling) on\b", r"\bgebunden\b",
    r"\b(seguir|continuar) (soportando|funcionando|corriendo|rodando|suportando)\b",
    r"\bprecisa (continuar|seguir|rodar|funcionar)\b", r"\bcontinuer à (tourner|fonctionner)\b",
    r"(動く|動作する|対応する)必要があ", r"でも動(く|作)",
    r"\bnot allowed\b", r"\bforbidden\b", r"\bprohibited\b", r"\bonly use\b", r"\bavoid\b",
    # asking first: "ask before adding any dependency", "без спроса", "动 X 之前先问我"
    r"\b(ask|check with) (me )?(first )?before\b", r"\bwithout asking\b", r"без спроса",
    r"спроси(те)? (меня )?(сначала|перед|прежде)", r"\bfrag\w* (mich )?(bitte )?(vorher|zuerst)\b",
    r"\bohne (zu )?fragen\b", r"\bdemande(-moi| moi)? (d'abord )?avant\b", r"\bsans demander\b",
    r"\bpregúnta(me)? (primero )?antes\b", r"\bsin preguntar\b",
    r"\b(me )?pergunt[ae] (primeiro )?antes\b", r"\bsem perguntar\b", r"先问(我|一下)",
    r"前に(聞いて|確認して|相談して)", r"先に(聞いて|確認して|相談して)",
    # how commits are written here: "commits auf Englisch", "conventional commits"
    r"(commit|коммит|提交)\w*[^.!?]{0,40}(english|englisch|anglais|ingl[eé]s|английск|英文|英語)",
    r"\bconventional commits\b",
    # where a kind of thing belongs: "API-Keys gehören in den Vault"
    r"\bgehör(t|en) (\w+ )?(in|nach|unter|ins)\b", r"\bbelongs? (only )?in(to)?\b",
    # nothing of a kind, colloquially: "also nix, was node 18+ braucht"
    r"\b(also|sonst|aber|und) nix\b", r"\bnix (was|mit|mehr|davon)\b",
    r"\bintoc(ável|able|ables|áveis)\b", r"\bde jeito nenhum\b", r"\bna mão\b",
    r"\bde ninguna manera\b", r"\bauf keinen fall\b", r"\ben aucun cas\b", r"\bни в коем случае\b",
    # a habit to drop: "lets stop using relative imports", "hör auf, … zu verwenden"
    r"\b(stop|quit) (using|adding|creating|writing|putting|making|calling|importing)\b",
    r"\bhör (bitte )?auf\b", r"\barrête (de|d')\b", r"\bdeja de (usar|poner|crear|escribir)\b",
    r"\bpar[ae] de (usar|colocar|criar|escrever)\b", r"\bперестань\b",
    r"别再", r"不要再", r"のはやめて",
    r"\bno more\b", r"\bstick (to|with)\b", r"\b(nothing|no one|nobody) (may|must) be\b",
    # a condition that must hold first: "not without a benchmark that shows it matters"
    r"\bnot without (a|an|the|some|any)\b", r"\b(we're|we are) stuck (on|with)\b",
    r"\bhängen\b.{0,60}\bfest\b", r"\bnichts (aus|von) \S+", r"\bnothing from \S+",
    r"\bnicht ohne\b", r"\bpas sans\b", r"\bno sin\b",
    r"\bnão sem\b", r"\bне без\b", r"\bnon senza\b", r"\bnever\b(?! ?mind)",
    r"\bbloqué(e|s)? (en|sur|à)\b", r"(^|[.;:]\s*)ne pas (?!oublier|hésiter|s'inquiéter)\w+",
    r"(?-i:\bNOT an? (new )?\w+)", r"(^|[.;,]\s*)(touche|lance|fais|mets|change|supprime|pousse|"
    r"commite|ajoute|utilise|installe|modifie)s? pas\b",
    # nothing by hand: "na prod nic ręcznie", "nada a mano en prod"
    # a thing refused with a trailing "no": "no, cron nuevo no.", "Redis não."
    r"(^|[.;:]\s*)(no,\s*)?(?!(creo|acho|por|todavía|aún|ainda|yo|eu|ahora|agora|the|a|an|it|"
    r"that|this|i|we|you|my|our|answer)\b)[\w/-]+( (?!(is|are|was|were|be)\b)[\w/-]+){0,2} "
    r"(no|não)\s*[.!]",
    r"\bnothing (by hand|manually)\b", r"\bnic ręcznie\b", r"\bnada a mano\b",
    r"\brien à la main\b", r"\bnichts (von hand|manuell)\b", r"\bnada na mão\b",
    r"ничего (руками|вручную)", r"不要手动", r"手動で(は)?(何も)?しない",
    r"\b(está|estamos|están) (atascad|atad)\w* (a|en)\b",
    r"\bpres[oa]s? (a|em|no|na)\b",
    r"\bpin(ned)? (it |\S+ )?(to|at)\b",
    # a budget stated as acceptable: "15 minutes stale is fine", "bis 200 ms reicht"
    _BUDGET + r"[^.;!?]{0,60}\b(is|are) (fine|ok|okay|acceptable|good enough)\b",
    _BUDGET + r"[^.;!?]{0,60}\b(reicht|genügt|ist (ok|okay|in ordnung|akzeptabel))\b",
    _BUDGET + r"[^.;!?]{0,60}\b(suffit|est acceptable|ça va)\b",
    _BUDGET + r"[^.;!?]{0,60}\b(basta|es aceptable|está bien|é aceitável|tá bom|está bom)\b",
    _BUDGET + r"[^.;!?]{0,60}(нормально|допустимо|достаточно)",
    _BUDGET + r"[^。；！？]{0,30}(可以接受|就够了|没问题|也行)",
    _BUDGET + r"[^。；！？]{0,30}(で十分|で問題ない|で構わない)",
    r"\bwe('re| are) not (using|pulling|adding|going|doing|touching|shipping)\b",
    # a window the work is held to: "restarts only after 23:00", "deploy only before noon"
    r"\bonly (after|before|between|outside( of)?) " + _WHEN,
    r"\bтолько (после|до|между|с) " + _WHEN, r"\bnur (nach|vor|zwischen|ab) " + _WHEN,
    r"\b(seulement|uniquement) (après|avant|entre) " + _WHEN,
    r"\bsolo (después de( las)?|antes de( las)?|entre( las)?) " + _WHEN,
    r"\bsó (depois d[ae]s?|antes d[ae]s?|entre( as)?) " + _WHEN,
    # staying where it is: "we're not moving to Postgres", "на постгрес не переезжаем"
    r"\bwe('re| are) not (moving|migrating|switching|porting) (to|away|off|over|from)\b",
    r"\bwe (don't|do not|won't) (move|migrate|switch|port) (to|away|off|over|from)\b",
    r"\bне (переезжаем|переходим|мигрируем)\b", r"\bwir (ziehen|wechseln|migrieren) nicht\b",
    r"\bon ne (passe|migre|bascule|change) pas\b", r"\bnão vamos (migrar|mudar|trocar)\b",
    r"\bno (vamos a )?(migrar|migramos|cambiamos)\b", r"不(迁移|换成|切换)", r"移行しません",
    r"\bwe (don't|do not|never|won't) (use|pull|add|do|touch|ship|deploy|merge|commit)\b",
    r"\bkeep (functions|files|lines|methods|it|them)\b.*"
    r"\b(under|below|short|small|at most)\b", r"\bno \w+(\s\w+)? (in|on|for) (this|the|our)\b",
    r"\buse \S+(?: \S+)?,? (not|instead of|rather than)\b", r"\bnot \S+,? (use|but)\b",
    # ru
    r"\bне (используй|используем|использовать|надо|нужно|делай|трогай|добавляй|пиши|меняй|"
    r"коммить|пушь|пушить|удаляй|ставь)", r"\bнельзя\b", r"\bобязательно\b",
    # any negated imperative: "не тащи", "не клади", "ничего не меняй" (not past "не могли")
    r"\bне (?![а-яё]*ли\b)[а-яё]{2,}(й|и|ь)(те)?\b",
    r"\bдолж(ен|на|ны|но)\b", r"\bзапрещ(ено|ён|ена|ены)\b", r"\bизбегай",
    # uk: "має працювати на Pi 3", "кіоск не чіпати", "не можна", "заборонено"
    r"\bма(є|ють|ємо)\s+(працювати|бути|йти|лишатися|залишатися|запускатися|збиратися)\b",
    r"\bтреба\b", r"\bпотрібно\b", r"\bне можна\b", r"\bзаборонено\b", r"\bобов.язково\b",
    r"\bне (чіпа\w*|торка\w*|пуш\w*|деплой\w*|коміт\w*|додава\w*|використову\w*|запуска\w*)",
    # de
    r"\b(bitte )?keine?n?\b \w+(\s\w+)? (verwenden|benutzen|nutzen|einbauen|hinzufügen|mehr)\b",
    r"^\s*bitte keine?", r"\b(verwende|benutze|nutze|ändere|committe|pushe|lösche|rühre|"
    r"füge)\w* (\S+ ){0,3}nicht\b", r"\bmuss\b", r"\bmüssen\b", r"\bdarf nicht\b",
    r"\bdürfen nicht\b", r"\bverboten\b", r"\bvermeide",
    # fr
    r"(^|[,;:]\s*|\bet\s+|\bmais\s+)(ne|n')\s*\w+\s+(pas|jamais|plus)\b",
    r"\bil ne faut (pas|jamais)\b", r"\bil faut\b", r"\bdoi(t|vent)\b", r"\binterdit\b",
    r"\bne (touche|mets|pousse|commite|ajoute|utilise|installe|modifie|supprime|lance|fais|"
    r"change|rajoute|merge|déploie)s? (\w+ )?(pas|jamais|plus|rien)\b",
    r"(^|[,;:]\s*|\b(donc|alors|et|mais|ici)\s+)pas d'\w+",
    # "pas l'UI, ça ouvre une fenêtre et ça bloque tout" (not "pas la peine", "pas le temps")
    r"^\W*pas (l'|la |le |les )(?!(peine|temps|moment|cas|souci|problème)\b)\w+",
    r"\bévite",
    # es / pt
    r"\bno (uses|usa|usamos|usar|hagas|toques|añadas|agregues|cambies|subas|borres)\b",
    r"\bno (metas|toques|subas|pongas|instales|mezcles|despliegues|modifiques|edites|elimines|"
    r"quites|dejes|abras|corras|ejecutes|llames|importes|saques|mandes|pushees|mergees|"
    r"commitees|hardcodees|expongas|loguees|guardes)\b",
    r"\bdebe(s|mos|n)?\b",
    r"\bhay que\b", r"\btiene(s|n)? que\b", r"\bprohibido\b", r"\bevita",
    r"\bnão (use|usa|usamos|usar|faça|mexa|adicione|mude|suba|apague)\b", r"\bdeve(mos|m)?\b",
    r"\bnão (sobe|roda|rode|mexe|commita|commite|instala|instale|coloca|coloque|bota|bote|toca|"
    r"toque|faz|deploya|apaga|muda|altera|altere|edita|edite)\b",
    r"\btem que\b", r"\bproibido\b",
    # it / pl / ko
    r"\bnon (usare|usiamo|toccare|aggiungere|fare|cambiare|committare|pushare|cancellare)\b",
    r"\b(devi|dobbiamo|bisogna)\b", r"\bvietato\b", r"\bnie (używa|używaj|rób|dodawaj|ruszaj|"
    r"zmieniaj|commituj|pushuj|usuwaj)\w*", r"\bnie wolno\b", r"\bmusi(sz|my)?\b", r"\bzakaz",
    r"마세요", r"말아 ?주세요", r"하지 ?마", r"쓰지 ?마", r"안 ?됩니다", r"금지", r"반드시",
    r"해야 ?(한다|합니다|해요)", r"고정해", r"돼야", r"되어야",
    # a rule passed on: "팀장님이 키 파일은 무조건 1Password에만 두라고 하셨어요", "남기지 말라고요"
    r"무조건", r"지 ?말라고", r"[가-힣]+(으)?라고 (하셨|했|하더라|그러셨)",
    # what others rely on: "bitte 429 mit Retry-After – darauf verlassen sich die SDKs"
    r"\b(rel(y|ies)|depend(s)?) on (it|this|that)\b", r"\b(darauf|drauf) verlass",
    r"\bverlass\w* sich (darauf|drauf)\b", r"\b(en|y) dépend(ent)?\b",
    r"\bdependen de (eso|ello|esto)\b", r"\bdependem disso\b",
    r"(на это|на него|от этого) (полагаются|рассчитывают|завязан)",
    # the only way through: "кластер только через VPN", "only via the bastion"
    r"\bonly (through|via|over|from) (the |a |our )?\w+", r"\bтолько через\b",
    r"\bnur (über|via)\b", r"\b(uniquement|seulement) (via|par)\b",
    r"\bsolo (a través de|vía)\b", r"\bsó via\b", r"只能(通过|走)",
    # a budget the work must fit: "buildable in a month by 3 people", "has to run on the Pi 3"
    r"\b(buildable|doable|deliverable|shippable|achievable|feasible) (in|within) (a|an|one|two|"
    r"three|four|\d+) (days?|weeks?|months?|sprints?)\b", r"\bhas to (run|work|fit) on\b",
    # a version still supported: "0.9 держим", "we still support Python 3.9"
    # (not a feature told: "we support .zip, but …")
    r"\bwe (still support|keep supporting)\b", r"\bwe support ([A-Za-z.]+ )?v?\d",
    r"\b(держим|поддерживаем)\b",
    r"\bunterstützen wir (noch|weiterhin)\b", r"\bon supporte (encore|toujours)\b",
    r"\b(seguimos soportando|todavía soportamos|ainda suportamos)\b", r"(还要|仍然|继续)支持",
    r"サポートし続け",
    # someone insisting (en, ru, de, fr/es/pt)
    r"\binsists?\b", r"\binsisting\b", r"настаива", r"bestehen? darauf", r"\binsist(e|ent|en)\b",
    # zh / ja
    r"不要", r"别(用|改|动|加|删|碰|提交|再|上|引入|装|拼|写|搞|跑|开|建|往|刷|推|部署|自己)",
    r"用不了", r"只通过",
    r"不能(用|上|引入)", r"(我们|这里|项目里|团队)不用", r"不用\s?[A-Z][A-Za-z]+", r"只走",
    r"要[^，。；]{0,20}[A-Za-z`][^，。；]{0,20}[，,]\s?(不然|否则)",
    r"不得", r"禁止", r"必须", r"务必", r"一定要",
    r"只用", r"只能", r"不准", r"不许", r"不让", r"不能用", r"不可以",
    r"しないで", r"ないでください", r"使わないで", r"なければならない", r"なければいけない",
    r"ないで(ね|ください|下さい|ほしい)?(、|。|$)", r"(る|ない)こと(。|$)",
    r"べき", r"てはいけない", r"ちゃだめ",
)
# Flags a person puts on what matters: "Important:", "Wichtig:", "Важно:".
EMPHASIS_RE = re.compile(
    # "important" that marks what is said, not "the important context" it qualifies
    r"\b(importantly|important(?=\s*[:!—-])|(it'?s|it is|very|really|super|most) important|"
    r"important(?= (that|to|for)\b)|^important\b|c'est important|note that|keep in mind|"
    r"remember( that| to)|heads up|crucial|critical|"
    r"rules?|house rules?|conventions?|ground rules)\b|"
    # a list of conditions announced as such: "constraints: …", "Vorgaben:", "几个前提："
    # "remember: …" flags what follows; "remember lower bounds" asks a program to keep them
    r"\bremember\s*[:：]|"
    r"\b(constraints|requirements|restrictions|ограничения|требования|vorgaben|einschränkungen|"
    r"anforderungen|contraintes|exigences|restricciones|requisitos|restrições)\s*[:：]|"
    r"前提|约束|制約|"
    r"правил(?!ьн)|\bregeln?\b|\brègles?\b|\breglas?\b|"
    r"\bregras?\b|规矩|规则|规定|ルール|決まり|\bacordate\b|\brecord[áa]\b|\brecuerda\b|"
    r"\blembr[ae]\b|n'oublie pas|\bdenk dran\b|помни|не забывай|覚えて|记住|"
    r"\breminders?\b|напоминаю|\bzur erinnerung\b|\b(pour )?rappel\b|\brecordatorio\b|"
    r"\bi (already )?told you\b|\bas i said\b|\bte lo (he|había) dicho\b|\bya te (lo )?dije\b|"
    r"\bje te l'ai (déjà )?dit\b|\bhab(e)? ich (dir )?(doch )?(schon )?gesagt\b|"
    r"\beu (já )?te disse\b|"
    r"я же (говорил|сказал)|我(已经)?说过|言ったよね|말했잖아|"
    r"\blembrete\b|提醒|念のため|"
    r"\bthe (whole|entire) point (is|was|of)\b|"
    r"\bwichtig\b|\bachtung\b|важно|внимание|\bimportante\b|\batención\b|"
    r"\batenção\b|重要|注意|大事|必ず|"
    # not up for discussion: "one hard rule", "una cosa innegociable", "security policy"
    r"\bnon-?negotiable\b|\bhard (rule|requirement|constraint)\b|\bnicht verhandelbar\b|"
    r"\bnon négociable\b|\binnegociable\b|\binegociável\b|\bnon negoziabile\b|не обсуждается|"
    r"没(得|有)商量|不容商量|譲れない|\b(security|company|team|our|house) polic(y|ies)\b|"
    r"\bpolítica (de seguridad|de segurança|da empresa|de la empresa)\b|"
    r"\bpolitique (de sécurité|de l'entreprise|maison)\b|\b(sicherheits|firmen)richtlinie|"
    r"политика безопасности|安全(策略|政策)|セキュリティポリシー|方針|方针|방침",
    re.IGNORECASE,
)
# Spanish "no" before a verb negates a statement ("no anduvo", "pero no resolvió", "no
# funciona"), it forbids nothing: past and imperfect endings, and the commonest verbs.
_SPANISH_NEGATED_VERB = (
    # what someone did or knows: "no supe qué decirle", "no probé", "no encuentro"
    r"(?:\w+(?:ó|é|í|aste|iste|aba|aban|ía|ían|uvo|ieron|aron)\b|(?:supe|supo|pudo|quise|"
    r"quiso|tuve|hice|hizo|dije|dijo|vi|vio|fui|estuve|puse|puso|traje|vine|dio|encuentro|"
    r"consigo|recuerdo|creo|logro|conozco|estoy|resolvio|funciono|rompio|compilo|"
    r"es|está|están|era|fue|hay|va|anda|sé|sabe|funciona|funcionan|sirve|carga|compila|"
    r"corre|aparece|encuentra|existe|puedo|puede|pude|tengo|tiene|hace|veo|entiendo|sale|"
    r"llega|llegan|pide|piden|salen|aparecen|cargan|guarda|muestra|responde|arranca|abre)\b)")
# Plain prohibitions without a modal verb: "no ORMs here", "keine externen Abhängigkeiten".
PROHIBITION_RE = re.compile(
    r"(^|[:;,(]\s*|\b(also|and|but|here|please|dafür|bitte|auch|hier|aber|und|et|mais|y|pero|"
    r"e|mas|so|и|но|так что|donc|alors|daher|also|entonces|então|quindi|поэтому|así que|только|"
    r"assim)\s+)"
    r"(żadnych|żadnego|żadnej|no(?!\s+" + _SPANISH_NEGATED_VERB + r"|\s+\S+\s+(aparece|aparecem|"
    r"acontece|fica|ficam|tem|têm|há|está|estão|roda|rodam|sai|mostra|existe|chega)\b)|"
    r"keine?n?|pas d[e']|nada de|"
    r"sem|ni|никаких|никакого|никакой|без(?!\s+(проблем|понятия|вопросов|разницы|толку)))"
    r"\s+[`'\"«“@.-]?\w+|"
    r"\b(tabu|taboo|off[- ]limits|no[- ]go|"
    r"табу|под запретом|interdit|prohibido|proibido)\b",
    re.IGNORECASE,
)

# A word naming a set of rules, in a line that announces them: "our rules here in the repo:".
RULES_WORD_RE = re.compile(
    r"\b(rules|conventions|guidelines|regeln|konventionen|règles|reglas|convenciones|regras|"
    r"convenções|regole)\b|правила|规则|规矩|ルール", re.IGNORECASE)

# Taste rather than law: these make a preference.
_PREFERENCE = _words(
    r"\bi prefer\b", r"\bwe prefer\b", r"\bprefer\b", r"\bi'd rather\b", r"\bi would rather\b",
    r"\bi (do |really |much )?(like|love)\b(?! (it|this|that)\b(?! when))", r"\bi don't like\b",
    # taste told as what reads better: "I find parametrize way more readable than loops"
    r"\b(more|less|far more|way more|much more) (readable|legible|elegant|idiomatic)\b",
    r"\bi find\b[^.!?]{0,60}\b(more|less|easier|harder|nicer|cleaner|clearer)\b",
    r"\blesbarer\b", r"\bplus lisibles?\b", r"\bmás legibles?\b", r"\bmais legíve(l|is)\b",
    r"\bje trouve\b[^.!?]{0,60}\bplus\b", r"\bmais bonito\b", r"\bfänd\w* (es )?schön\b",
    r"\bmir gefallen\b", r"\bme encanta (cuando|que)\b", r"\bgosto (quando|que)\b",
    r"\bcurto (bastante|muito|mais)\b", r"\bsou (mais )?fã\b", r"люблю,? когда", r"приятнее",
    r"проще читать", r"по вкусу", r"喜欢", r"我希望你", r"苦手", r"読みやすい", r"可读性",
    # how the answers should read: "réponds court stp", "respuestas cortas porfa"
    r"\b(answers?|responses?|replies|antworten|réponses?|respuestas?|respostas?)\b[^.!?]{0,30}"
    r"\b(short|shorter|brief|kurz|court|courtes?|cortas?|curtas?)\b",
    r"\b(réponds|responde|halt dich)\b[^.!?]{0,30}\b(court|curto|kurz|corto)\b",
    r"\bi want\b.*\b(to be(?! able)|style|format)\b",
    # a dislike of what was done: "i hate .sh tests", "I hate how you placed the tests"
    r"\bi (hate|dislike|can't stand|cannot stand|really don't like)\b", r"\bich hasse\b",
    r"\bje déteste\b", r"\bodio (que|los|las|el|la|cuando)\b", r"\bodeio\b", r"ненавижу",
    r"терпеть не могу", r"我讨厌", r"我不喜欢", r"嫌いです", r"\bnie znoszę\b",
    r"\bplease use\b", r"\bi'm a fan of\b",
    r"мне ближе", r"\bлучше\b[^.!?]{3,60}, чем\b", r"\bknapp\b", r"\bmag ich (gar |überhaupt )?"
    r"nicht\b", r"\bj'ai horreur\b", r"\b(me resulta|es|me parece) más (cómodo|claro|legible)\b",
    r"\bmejor que (me )?\w+(as|es)\b", r"\bdetesto\b", r"讨厌", r"嫌い", r"と嬉しい", r"短めで",
    r"предпочита", r"мне (больше )?нравится", r"лучше (использовать|писать|делать)",
    r"\bbevorzuge", r"\blieber\b", r"\bmir gefällt\b",
    r"\bje préfère\b", r"\bpréfér", r"\bplutôt\b", r"\bj'aime\b",
    r"\btercih (ederim|ediyorum|ediyoruz)\b", r"\bdaha (çok )?seviyorum\b",
    r"\b(mujhe|hume|humein) \w+( \w+)? pasand\b", r"\bbehtar (hai|hoga)\b",
    r"\b(aku|saya|gue|gw|kami|kita) (lebih )?(suka|senang)\b", r"\blebih suka\b",
    r"\bmending\b", r"\blebih (enak|rapi|bagus|baik) (pakai|kalau|pake)\b",
    r"\bprefiero\b", r"\bprefiere\b", r"\bme gusta\b", r"\bprefiro\b", r"\bprefere\b",
    r"\bgosto de\b", r"\bmelhor usar\b", r"\bmejor usar\b",
    r"更喜欢", r"偏好", r"优先", r"倾向", r"尽量", r"好む", r"好き", r"の方がいい", r"のほうがいい",
    r"優先",
    r"\bi'd like (it|them|the|to keep|us to)\b", r"\bpreferably\b",
    r"я бы (хотел|предпоч)", r"мне удобнее", r"\bam liebsten\b", r"\bich hätte (lieber|gern)",
    r"\bvorzugsweise\b", r"\bj'aimerais\b", r"\bde préférence\b", r"\bpreferimos\b",
    r"\bprefira\b", r"\bpreferiría\b", r"\bpreferiria\b", r"\bme gustaría\b",
    r"\bde preferencia\b", r"\bde preferência\b", r"好み", r"なるべく", r"できれば",
    r"\bpreferisco\b", r"\bpreferiamo\b", r"\bmeglio (usare|se)\b", r"\bmi piace\b",
    # the way the rest of the code does it: "like the existing tests", "既存のと同じく"
    r"\b(like|same as|consistent with|matching) the (existing|other|rest)\b",
    r"\bwie (die|der|das|den) (bestehenden|vorhandenen|anderen|übrigen)\b",
    r"\bcomme (les|le|la) (existant|autres)", r"\bcomo (los|las|el|la|o|os|a|as) "
    r"(existentes|demás|outr[oa]s|otr[oa]s)\b", r"как (в|и) (остальных|существующих)",
    r"\bcome (gli|i|le) (altri|altre|esistenti)\b",
    r"既存(の(もの)?)?と同じ", r"(和|跟|与)现有的?\S{0,6}一样",
    r"\bwolę\b", r"\bwolimy\b", r"\blepiej (użyć|używać|pisać)\b", r"선호", r"좋겠", r"편해요",
    # a taste shown by asking for more or less of something: "shorter commit messages please"
    r"\b(shorter|longer|smaller|simpler|fewer|terser|plainer)\b[^.!?]{0,40}\bplease\b",
    r"\bkeep (the |our |your )?\w+( \w+)? (short|shorter|brief|concise|terse|simple)\b",
    r"\b(kürzere|einfachere|weniger)\b[^.!?]{0,40}\bbitte\b",
    r"\bplus (courts?|courtes|simples?)\b[^.!?]{0,40}\bs'il te plaît\b|\bplus courts?, stp\b",
    r"\bmás (cortos?|cortas?|simples?)\b[^.!?]{0,40}\bpor favor\b",
    r"\bmais (curtos?|curtas?|simples?)\b[^.!?]{0,40}\bpor favor\b",
    r"покороче", r"короче,? пожалуйста", r"简短一点", r"短めに",
)

# What never happens is a symptom, not a rule: "o ficheiro nunca aparece", "it never loads".
NEVER_HAPPENS_RE = re.compile(
    # "we never get the response from claude": what they saw, not what they forbid
    r"\b(we|i|it|they) never (get|got|receive|received|see|saw|hear|heard)\b|"
    r"\b(never|nunca|jamais|nie|niemals) (\w+ )?(appears|arrives|loads|finishes|returns|shows|"
    r"works|fires|completes|ends|happens|gets (called|sent|saved)|aparece|llega|chega|funciona|"
    r"carga|carrega|termina|acaba|sale|sai|vuelve|volta|arrive|apparaît|marche|fonctionne|"
    r"se termine|(kommt|erscheint|lädt|funktioniert|endet)( an)?)\b|"
    r"никогда не (приходит|появляется|грузится|работает|заканчивается)|从来没(有)?\S{1,4}|"
    r"一度も\S{1,6}(ない|ません)",
    re.IGNORECASE)
# What something always or never does is its behaviour, not a rule: "the /health endpoint
# always returns 200", "`parseFecha` siempre devuelve un Date", "サービスは毎回固まります".
BEHAVIOUR_RE = re.compile(
    r"\b(always|never|every time|each time)\s+(\w+\s+)?(returns|crashes|fails|hangs|freezes|"
    r"throws|breaks|times out|dies|exits|panics|finishes|loads|shows|gets|comes|arrives|runs|"
    r"stops|starts|expires|empties|responds|sends|prints|logs|ends|blocks|works|invalidates|"
    r"succeeds|passes|happens|fires|lands|goes)\b|"
    r"\b(it|this|that|they) (always|never)\b|"
    r"(всегда|никогда не)\s+(\w+\s+)?(пада|отда|возвраща|кида|висн|зависа|вылета|краш|лома|"
    r"приход|инвалидир|выставля|срабатыва|отвалива|тормоз|работа|груз|заканчива|отвеча|выда)|"
    # (not "auf Prod läuft niemals ein --full-refresh": what may run there is a rule)
    r"\b(gibt|liefert|stürzt|hängt|wirft|kommt|lädt|bricht|endet|crasht|antwortet|"
    r"schlägt|startet)\b[^.!?]{0,40}\b(immer|nie|niemals)\b|\bimmer mit (exit|fehler|error)|"
    r"\bläuft (immer|nie|niemals) durch\b|"
    r"\b(plante|plantent|renvoie|retourne|lève|expire|bloque|crashe|échoue|marche|fonctionne|"
    r"répond|arrive|charge|finit|termine|affiche|envoie|reste|restent)\b[^.!?]{0,15}"
    r"\b(toujours|jamais)\b|"
    r"\b(siempre|nunca|sempre)\s+(se\s+)?(devuelve|queda|quedan|llega|llegan|salta|falla|revienta|"
    r"crashea|cuelga|tarda|responde|carga|termina|funciona|sale|vuelve|da|tira|lanza|explota|"
    r"muestra|fecha|trava|retorna|devolve|cai|quebra|esvazia|chega|carrega|dá|estoura|mostra|"
    r"volta|demora|fica|ficam)\b|"
    r"(总是|永远|每次|一直)[^，。,]{0,10}(返回|卡|崩|挂|闪退|报错|失败|超时|没反应)|"
    r"(毎回|常に|いつも|絶対に)[^。、]{0,15}(固ま|落ち|返し|返さ|返って|返る|クラッシュ|エラー|失敗|"
    r"止ま|タイムアウト)|"
    # what the person never saw before, said as praise: "never would've thought of that"
    r"\bnever (would('ve| have)|had|have|'d)? ?(thought|seen|guessed|imagined|known)\b|"
    r"\bjamais vu\b|\bnunca (había |habría |tinha |teria )?(visto|pensado|imaginado|pensé|"
    r"pensei|vi|imaginei)\b|никогда не (додумал|видел|думал)|\bnie (gedacht|gesehen)\b|"
    r"从没想到|思いつかな|"
    # what the speaker would never have managed: "never would have found that myself"
    r"\bnever (would|'d)('ve| have)? (have )?\w+|\b(wär|wäre|hätte) ich (da )?(nie|niemals)\b|"
    r"\bnie (drauf )?gekommen\b|\bjamais j'aurais\b|\bnunca (lo |la |eso )?habría\b|"
    r"\bnunca (que )?(eu )?(ia|iria|teria)\b|никогда бы\b|永远都?(找不到|想不到)|"
    r"(気づけ|見つけられ|思いつけ)なかった|"
    # someone's past habit, not a rule: "marco always used tabs back when …"
    r"\balways (used|did|wrote|put|made|committed|had|was|were)\b|\bused to\b|\bback when\b|"
    r"\bfrüher\b[^.!?]{0,40}\bimmer\b|\bimmer\b[^.!?]{0,40}\b(gepackt|gemacht|geschrieben|"
    r"benutzt|verwendet|committet)\b|всегда [а-яё]+(ил|ал|ял|ел)(а|и)?\b|"
    r"\b(siempre|sempre) \w+(aba|ía|ava|ia)(n|m)?\b|\btoujours \w+(ait|aient)\b|"
    r"以前(总是|都)|昔(は)?いつも",
    re.IGNORECASE)
# What explains an effect ("…, that's why the queue drains so fast") tells how things
# are, and "if we ever move to Postgres" imagines: neither asks for anything lasting.
EXPLAINED_RE = re.compile(_words(
    r"\bthat'?s why\b", r"\b(which|that) is why\b", r"поэтому", r"отсюда", r"\bdeshalb\b",
    r"\bdeswegen\b", r"\bc'est (pour ça|pourquoi)\b", r"\bd'où\b", r"\bpor eso\b", r"\bpor isso\b",
    r"所以", r"作りなので", r"仕様なので",
), re.IGNORECASE)
IMAGINED_RE = re.compile(_words(
    r"\bif we ever\b", r"\b(falls|wenn) wir (mal|irgendwann|jemals)\b", r"\bsi un jour\b",
    r"\bsi algún día\b", r"\bse um dia\b", r"если (мы )?когда-нибудь", r"如果(以后|将来)",
    r"もし(将来|いつか)",
), re.IGNORECASE)
# A symptom seen each time: "ça plante à chaque fois que …", "毎回文字化けします".
EVERY_TIME_RE = re.compile(_words(
    r"\b(every|each) time\b", r"\bjedes mal\b", r"\b(à )?chaque fois\b", r"\bcada vez\b",
    r"\btoda vez\b", r"каждый раз", r"每次", r"毎回",
), re.IGNORECASE)
# A request for this once: "don't run the full suite this time", "今日は本番デプロイしないで".
ONE_OFF_RE = re.compile(_words(
    r"\bthis time\b", r"(?<!from )\b(today|tonight|right now)\b",
    r"\bfor (this|the) (spike|prototype|poc|demo|experiment|throwaway|one-off)\b",
    # (not "in this PR": "don't bump deps in this PR, Marta bumps them monthly" is a rule)
    r"на этот раз", r"\bсегодня\b", r"\bсейчас не\b",
    r"для этого (прототипа|спайка|скрипта|эксперимента)", r"\bdiesmal\b", r"\bdieses mal\b",
    r"(?<!ab )\bheute\b", r"\bgerade nicht\b", r"\bcette fois\b",
    r"(?<!partir d')\baujourd'hui\b",
    r"(?<!partir de )\bmaintenant\b", r"\besta vez\b", r"(?<!desde )\bhoy\b", r"\bahora mismo\b",
    r"\b(desta|dessa|nesta|nessa) vez\b", r"(?<!partir de )\bhoje\b", r"\bagora não\b",
    r"\b(para|pra|para este|pra esse) (protótipo|spike|teste rápido)\b",
    r"这次", r"这回", r"(?<!从)今天", r"今回", r"今日は", r"とりあえず", r"すぐ捨てる",
    r"\bkali ini\b", r"\bbu sefer(lik)?\b", r"\bis baar\b", r"\babhi ke liye\b",
    r"(?<!mulai )\bhari ini\b", r"\bsekarang (dulu|aja)\b",
    r"\b(we're|we are) throwing it away\b", r"\bwirf\w* (es|ihn|das) (eh )?weg\b",
    r"\bвсё равно выкинем\b", r"\bвыкинем\b",
), re.IGNORECASE)
# Phrases that look like rules but ask for nothing lasting.
SELF_REPORT_RE = re.compile(
    r"\bi (never|always|don't|do not|didn't|did not) (call|called|use|used|did|do|had|touch|"
    r"touched|wrote|write|run|ran|set|saw|see|get|got|import|imported|change|changed)\b|"
    # what never was, told of the past: "el cache global nunca fue la idea"
    r"\b(was|were) never\b|\bnunca (fue|fueron|ha sido|estuvo|foi|foram)\b|"
    r"\bn'a jamais été\b|\bwar (nie|niemals)\b|никогда не (был|была|было|были)\b|"
    r"从来(不是|没有)|\bnon è mai stat[oa]\b",
    re.IGNORECASE,
)
NOT_A_RULE_RE = re.compile(
    r"\b(don't|do not) (worry|bother|hesitate|mind|forget|know|think|see|understand|have|"
    r"expect|believe|remember|recall|suppose|need"
    r" to worry)\b|\bmake sure (it|this|that|you) (works|passes|runs)\b|\bnever mind\b|"
    r"\bjangan (khawatir|kuatir|sungkan|lupa|ragu)\b|"
    r"\b(don't|do not) actually\b|"  # "explain how to run it, don't actually run": this once
    r"\b(don't|do not) (change|touch|modify|edit|commit|push|fix|write) (anything|it|this|that|"
    r"them|yet)\b|\bjust (explain|tell|show|look)\b|"
    r"\b(we|it|they|this|that|he|she) still (don't|do not|doesn't|does not|can't|cannot|won't)\b|"
    # how a thing works, asked to be explained: "어떻게 돌아가는 건지도 설명해 주시면
    # 좋겠어요", "explain how it works"
    r"(돌아가는|작동하는|동작하는) (건지|방식)|\bexplain (to me )?how (it|this|that|the \w+) "
    r"works\b|"
    # a thing pointed at, to go or to change this once: "das muss raus", "that must go"
    r"^\W*(das|dies|that|this|ça|cela|eso|esto|isso|isto|это)\s+(muss|must|has to|"
    r"needs to|doit|debe|tem que|precisa|должно)\b(?!\s+(stay|remain|keep|always|never|still|"
    r"bleiben|immer|nie|rester|toujours|jamais|seguir|permanecer|continuar|siempre|nunca|sempre|"
    r"оставаться|всегда|никогда)\b)|"
    # how a thing looks to someone: "they don't look that bad", "it doesn't seem to matter"
    r"\b(they|these|those|it|this|that|he|she) (don't|do not|doesn't|does not) "
    r"(look|seem|appear|sound|feel|matter)\b|"
    # what a thing fails to do, a symptom: "the filter buttons at the top don't work"
    r"\b(?!(i|you|we|please|pls|and|but|so|just|also|then|still|really|simply|that|which|"
    r"who|why|if|when)\b)[a-z]\w* (don't|dont|do not) (work|show|load|render|appear|display|"
    r"update|respond|fire|trigger|open|close|save|scroll|submit|sync|refresh|exist|start|run|"
    r"compile|build|match|move|seem)\b",
    re.IGNORECASE,
)

# A place named: "don't touch" it is a lasting rule, not "change nothing" this once
# ("本番のDBには触らないでください", "prod db is read-only for you", "legacy/ …").
PLACE_RE = re.compile(_words(
    r"\b(prod|production|staging|db|database|datenbank|base de données|base de datos|banco|"
    r"schema|migrations?|vendor|legacy|infra|terraform|third[_-]party)\b", r"\bпрод\w*",
    r"\bбаз[аеуы]\b", r"本番", r"生产", r"线上", r"数据库", r"データベース", r"\bDB\b",
    r"[\w.-]+/(?![/\w])|`[^`]*/[^`]*`",
), re.IGNORECASE)
# "We ship on Tuesdays", "our API is versioned": a team's convention stated as a fact.
RULE_SUBJECT_RE = re.compile(
    r"^\s*(we|our (team|code|api|repo|project)|this (repo|project|codebase))\b.*\b(use|ship|deploy|"
    r"release|run|write|keep|follow|merge|name|version|pin|test|target)\w*\b",
    re.IGNORECASE,
)
LASTING_RE = re.compile(_LASTING, re.IGNORECASE)
# A recurring day: with a team's convention ("we ship on Tuesdays") it makes a rule.
SCHEDULE_RE = re.compile(_words(
    r"\b(on )?(mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b",
    r"по (понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям)",
    r"\b(montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags)\b",
    r"\blos (lunes|martes|miércoles|jueves|viernes|sábados|domingos)\b",
    r"\b(às|nas) (segundas|terças|quartas|quintas|sextas)\b", r"每周[一二三四五六日天]",
    r"毎週[月火水木金土日]曜",
), re.IGNORECASE)
OBLIGATION_RE = re.compile(_OBLIGATION, re.IGNORECASE)
PREFERENCE_RE = re.compile(_PREFERENCE, re.IGNORECASE)
