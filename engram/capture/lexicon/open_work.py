"""Work and questions left open in what a person says: handed off, wondered, put off.

A question for someone else, wondering aloud, a decision left to another, what the person has
not done yet and work named or left for later stay open until they are done; none of them is
a rule, though they often say "should".
"""

from __future__ import annotations

import re

from .words import ZH_LATER, _words

# An answer that leaves the decision to someone else: the question stays open.
UNDECIDED_RE = re.compile(_words(
    r"\b(product|business|judgement|judgment) (call|decision)\b", r"\bask whoever\b",
    r"\b(up to you|your call|for you to decide|needs? (a|your) decision|worth discussing|"
    r"(decide|discuss) (it |this )?(as a|with the|in the) team|open question|hasn't been decided|"
    r"not decided|i (didn't|did not|haven't) (build|implement|change|add)\w* (any|it|that|this|"
    r"either))\b",
    r"решать вам", r"обсудить с командой", r"im team entscheiden", r"solltet ihr .*entscheiden",
    r"nichts davon eingebaut", r"à vous de (voir|décider)", r"à décider", r"en équipe",
    r"decidir (en|con el) equipo", r"decidan", r"a decidir", r"decidir com o time",
    r"vocês decidem", r"由你们决定", r"团队决定", r"待定", r"チームで(決め|判断)", r"ご判断",
    r"決めてから", r"決める必要", r"\bteamfrage\b", r"\b(a )?team question\b",
    r"\bquestion for the team\b", r"nichts davon geändert", r"question d'équipe",
    r"pregunta para el equipo", r"pergunta para o time", r"вопрос для команды",
    r"questione di squadra", r"团队的?问题", r"チームの判断", r"先(要)?决定",
    r"\bdecide (that )?first\b", r"erst entscheiden",
    r"décider d'abord", r"decidir primero", r"decidir primeiro", r"сначала решить",
    # a decision still to be taken: "falta decidir quién se entera", "il reste à décider"
    r"\b(still (need|have) to|needs? to be|has yet to be|remains to be) decided\b",
    r"\b(falta|queda|resta) (por )?decidir\b", r"\breste à décider\b",
    r"\bsin decidir\b", r"\bpas (encore )?décidé\b", r"\bnoch nicht entschieden\b",
    r"\b(ainda )?não (foi )?decidido\b", r"\bsem decisão\b", r"\bне решено\b", r"还没定",
    r"\bnon (ancora )?deciso\b", r"\bnie zdecydowan", r"\bnog niet beslist\b",
    r"\bnoch (zu )?entscheiden\b", r"\b(нужно|надо|предстоит|осталось) решить\b",
    r"还(没|要|得)决定", r"\bfalta decidir\b", r"\bresta (da )?decidere\b",
), re.IGNORECASE)
# A question handed to someone who can answer it: "ask Priya", "问问小王", "lo tiene que decir
# legal", "faudra demander à Claire" — open until they do.
HANDOFF_RE = re.compile(_words(
    r"\b(ask|asking|check with|run it by|clarify with)\s+(?!(you|me|for|it|about|again|"
    r"the agent|claude|whoever|before|first)\b)[\w-]+", r"\b(is|it's) (their|his|her) call\b",
    r"\b\w+ (has|have) to decide\b", r"\bup to (legal|product|ops|security|\w+ team) to\b",
    r"\bfrag(en|t)? (\w+ )?(bei )?[A-ZÄÖÜ]\w+", r"\bmit \w+ (klären|abklären|absprechen)\b",
    r"\bmuss \w+ entscheiden\b",
    # "muss ich lena fragen (ux)", "ich muss noch den Chef fragen"
    r"\b((muss|müssen|sollte|sollten|werde|will) (ich|wir)|(ich|wir) (muss|müssen|sollte|"
    r"sollten|werde|will)) (noch )?(\w+ ){1,3}fragen\b",
    r"\bdemander à\b", r"\bvoir avec\b", r"\bdemande à\b", r"\b\w+ doit (le )?décider\b",
    r"\bpreguntar(le)? a\b", r"\bpregunta a\b", r"\bconsultar(lo)? con\b",
    # the person asking themselves: "lo de la alerta le pregunto a Vale", "je demande à Paul"
    r"\b(le |les )?pregunto a\b", r"\b(lhe )?pergunto (a|ao|à|pro|pra)\b", r"\bje demande à\b",
    r"\bich frage (?-i:[A-ZÄÖÜ])\w+", r"\bfrage ich (?-i:[A-ZÄÖÜ])\w+", r"\b(gli |le )?chiedo a\b",
    r"\b(lo|eso lo) (tiene que|debe|va a) (decidir|decir)\b", r"\blo decide\b",
    r"\bperguntar (a|ao|à|pro|pra)\b", r"\bpergunta (a|ao|à|pro|pra)\b", r"\bver com (o|a)\b",
    r"\bquem decide\b", r"\bchiedere a\b", r"\bchiedi a\b", r"\bdecide \w+\b(?= e| \.)",
    r"\bспрос(и|ить|им|ите|ю)\b(?!,? (меня|если|сначала|перед|прежде))", r"\bспрошу\b",
    r"\b(за)?спита(ю|є|ємо|йте|ти)\b(?!,? (мене|якщо|спочатку))",  # uk
    r"\bуточн(ю|ить|и|им) у\b", r"\bрешает \w+",
    r"问问", r"问一下", r"得问", r"要问", r"去问", r"问[老小阿][\u4e00-\u9fff]", r"由\S{1,8}决定",
    r"\S{1,6}说了算",
    r"に聞(いて|く|かない)", r"に確認(して|する|しない)", r"に相談", r"が決める",
    r"에게 물어", r"한테 물어", r"(께|에게|한테) (여쭤|여쭈|물어)",
    r"\b(za|s)?pyta(m|my|ć|j)? \w+", r"\bpyta \w+", r"\bvraag (het )?(aan )?\w+",
    r"\bvragen aan\b", r"\b(navragen|nagaan) bij\b",
    r"\b\w{1,30}'?(e|a|ye|ya) (soray(ım|acağım)|sorulacak|sormak lazım|danışmak lazım)\b",
    r"\b\w{1,30} se (puchna|poochna|puchh|pooch)\w*\b",
    r"\bi'll (bring|raise) (it|this|that) (up )?(on|at|in|with|friday|monday|tomorrow)\b",
    # parked for a meeting: "let's bring it up at the standup"
    r"\b(discuss|bring (it|this) up|talk about (it|this)|decide) (at|in) (the |tomorrow's |next |"
    r"our )?(meeting|standup|stand-up|retro|planning|sync|weekly)\b",
    r"на (встрече|планёрке|планерке|созвоне|стендапе|ретро)", r"\bim (meeting|standup|weekly|"
    r"jour fixe)\b", r"\ben la (reunión|daily|retro|planning)\b", r"\bna (reunião|daily|retro)\b",
    r"\bà la (réunion|rétro|daily)\b", r"在(周会|例会|站会|会上)", r"(会議|定例|朝会)で",
), re.IGNORECASE)
# Someone to be told: "Sofía de security tiene que saberlo", "Lena muss das wissen" — work
# for the person (tell them), not a rule for the agent, though it says "has to".
TELL_SOMEONE_RE = re.compile(_words(
    r"\b(?<!\bi )(?<!\byou )(?<!\bwe )(has|needs|ought) to (know|be told|hear about)\b",
    r"\b(should|must) be (told|informed|warned|notified)\b",
    r"\btiene que (saberlo|saber|enterarse)\b", r"\bhay que (avisar|contarle|decirle)",
    r"\bmuss (das|es|davon|darüber) wissen\b", r"\bmuss (informiert|benachrichtigt) werden\b",
    r"\bbescheid (geben|sagen)\b", r"\bil faut (prévenir|informer|avertir)\b",
    r"\bdoit (le |être au courant|être prévenu|être informé)", r"\b(precisa|tem que) saber\b",
    r"\b(tem que|precisa) ser avisad[oa]\b", r"\b(deve|devono) saperlo\b",
    r"\bva (avvisat|informat)[oa]\b", r"\bдолж(на|ен|ны) (об этом |это |про это )?знать\b",
    r"\bнадо (сказать|предупредить|сообщить)\b", r"(要|得|需要)(告诉|通知)", r"に(伝え|知らせ)",
), re.IGNORECASE)
# Wondering aloud: a question, however it ends ("いずれ外すべきか気になってる", "I wonder
# whether we should drop it") — never a rule, though it says "should".
WONDER_RE = re.compile(_words(
    r"\bi (wonder|was wondering|am wondering|'m wondering) (if|whether|why|how)\b",
    r"\bwondering (if|whether)\b", r"\bich frage mich,? ob\b", r"\bje me demande si\b",
    # not knowing, said so: "keine ahnung ob das backend die sortierung stabil hält"
    r"\bno idea (if|whether|how|why|what|who|about)\b",
    r"\bkeine ahnung,? (ob|wie|warum|wer|was)\b",
    r"\baucune idée (si|de|pourquoi|comment)\b", r"\bni idea (si|de|por qué|cómo)\b",
    r"\bnão faço (a menor )?ideia (se|de|por que|como)\b", r"понятия не имею", r"без понятия",
    r"\bnessuna idea (se|di)\b", r"\bnie mam pojęcia\b", r"\bgeen idee (of|hoe|waarom)\b",
    r"\bme pregunto si\b", r"\bme pergunto se\b", r"\bmi chiedo se\b",
    r"\bинтересно,? (стоит|нужно|надо|ли)",
    r"我在想", r"不知道(要不要|该不该|是否)", r"気になって", r"気になる", r"べきか(な|どうか)",
    r"할지 궁금",
), re.IGNORECASE)

# The person saying what they have not done yet: "I haven't put the index on prod yet".
USER_NOT_YET_RE = re.compile(_words(
    r"\b(i|we) (haven't|have not|didn't|did not)\b.{3,80}\byet\b",
    r"\b(i|we) still (need|have) to\b",
    r"\b(ich|wir) (habe|haben)\b.{0,60}\bnoch nicht\b",
    r"\b(je n'ai|on n'a|nous n'avons) pas encore\b",
    r"\b(todavía|aún) no (he|hemos)\b", r"\b(eu|a gente|nós) ainda não\b",
    r"\b(я|мы) (ещё|еще) не\b",
    r"\bnon (ho|abbiamo) ancora\b", r"我(们)?还没", r"まだ.{0,30}(ていません|てない|していない)",
), re.IGNORECASE)

# Work a person names for later in their last words: "we'll need to", "il faudrait".
LATER_WORK_RE = re.compile(_words(
    r"\bwe('ll| will) (need|have) to\b", r"\bwe (should|need to|still need to)\b",
    r"\bsomeone (should|needs to)\b", r"\bit would be (good|nice) to\b",
    r"\bquelqu'un (devrait|doit)\b", r"\bjemand (sollte|muss)\b",
    r"\balguien (debería|tiene que)\b",
    r"\balguém (deveria|tem que|precisa)\b", r"\bкто-(то|нибудь) (должен|должна)\b",
    r"\bкому-(то|нибудь) (надо|нужно) (бы|будет)\b", r"\bqualcuno dovrebbe\b",
    r"\b(needs?|will need) (a|an|the|to)\b.{0,60}\b(at some point|eventually|someday|one day)\b",
    r"\b(is|are) (long )?overdue\b", r"\büberfällig\b", r"\ben retard\b", r"давно пора",
    r"нужно будет", r"надо будет", r"стоит (потом|ещё)", r"wir (sollten|müssen noch)",
    r"il faudrait", r"on devrait", r"il faudra", r"habría que", r"deberíamos", r"hay que",
    r"a gente (precisa|deveria)", r"precisamos", r"deveríamos", r"(还|以后)?需要", r"应该",
    r"必要がある", r"したほうがいい",
    # after a milestone: "las traduce Marta después del lanzamiento"
    r"\bafter (the )?(launch|release|deploy|demo|migration|freeze|go-live)\b",
    r"\bdespués del? (lanzamiento|release|deploy|la demo|la migración)\b",
    r"\bnach dem (release|launch|deploy|go-live|launch)\b",
    r"\baprès (le |la )?(lancement|release|mise en prod|démo|migration)\b",
    r"\bdepois do (lançamento|release|deploy)\b", r"после (релиза|запуска|деплоя|миграции)",
    r"(上线|发布)(之)?后", r"リリース後", r"\bdopo il (rilascio|lancio|deploy)\b",
    # a day named for it: "mach ich nächste woche", "je reprends lundi"
    r"\b(tomorrow|next week|nächste woche|morgen|demain|la semaine prochaine|mañana|"
    r"la (semana que viene|próxima semana)|amanhã|(na )?semana que vem|próxima semana|завтра|"
    r"на следующей неделе|domani|(la )?prossima settimana|jutro|w przyszłym tygodniu|"
    r"volgende week|yarın|haftaya)\b", r"明天", r"下周", r"明日", r"来週", r"내일", r"다음 주",
    # a weekday it waits for: "la migration attendra lundi", "bis Montag", "until Monday"
    r"\b(until|till|by|next) (monday|tuesday|wednesday|thursday|friday)\b",
    r"\b(attendra|part|partira|reprendra|jusqu'à|d'ici) (lundi|mardi|mercredi|jeudi|vendredi)\b",
    r"\b(bis|ab) (montag|dienstag|mittwoch|donnerstag|freitag)\b",
    r"\bhasta el (lunes|martes|miércoles|jueves|viernes)\b",
    r"\baté (segunda|terça|quarta|quinta|sexta)\b",
    r"\bдо (понедельника|вторника|среды|четверга|пятницы)\b",
    # uk: "в понеділок сама оновлю кіоск", "наступного тижня", "завтра" (above)
    r"\b(в|у|до) (понеділок|понеділка|вівторок|середу|четвер|п'ятницю)\b",
    r"\bнаступного тижня\b",
), re.IGNORECASE)
# A request to leave something for later: a todo in the user's own words.
DEFER_RE = re.compile(_words(
    r"\bleave (it|that|this|the \w+( \w+)?) (for|to) (later|another|a separate|a follow|the next|"
    r"tomorrow)", r"\b(for|in) a (separate|later|follow-?up|different) (pr|commit|change|ticket|"
    r"issue|task)\b", r"\b(later|tomorrow|next week|next sprint)\b.*\b(we'll|we will|i'll|i will|"
    r"let's)\b", r"\b(we'll|we will|i'll|i will|let's) .*\b(later|tomorrow|next week|"
    r"separately)\b",
    r"\b(in|for) (another|the next) (pr|commit|change|ticket|issue|task)\b",
    r"\bdans un autre ticket\b", r"\bin einem anderen ticket\b", r"\ben otro ticket\b",
    r"\bem outro ticket\b", r"в другом (тикете|задаче)",
    r"(оставим|отложим|сделаем) (на )?потом", r"в отдельном (пр|pr|коммите)", r"später",
    r"separaten (pr|commit)", r"plus tard", r"dans une (autre|prochaine) pr", r"más tarde",
    r"otro pr", r"depois", r"outro pr", ZH_LATER + "再", r"下次", r"別のpr", r"後で",
    r"più tardi", r"\bdomani\b", r"\bpóźniej\b", r"\bjutro\b", r"다음에", r"나중에",
    r"\bama sonra\b", r"\bsonra(ya)? (bakarız|bırakalım|yaparız)\b", r"\bşimdilik değil\b",
    r"\bbaad (mein|me) (karenge|karte|dekhenge|karungi|karunga)\b",
    r"\b\w{1,30} ke baad\b.*\bkarenge\b",
    r"\bnanti (aja|saja|dulu)\b",
    r"\bleave \S+( \S+)? (alone )?for now\b",
    # the person takes it on themselves: still open work, only not the agent's
    r"\bi'll (handle|take care of|deal with|sort out|follow up on) (the|that|it|this)\b",
    r"\bi'll do (it|that|this|the \w+( \w+)?) myself\b", r"\bmach(e)? ich selbst\b",
    r"\bje (le |la )?ferai moi-même\b", r"\blo hago yo\b", r"\beu mesmo faço\b",
    r"我自己(来|做)", r"自分でやります",
    r"\b(darum )?kümmere ich mich\b", r"\bje m'en (occupe|charge)\b", r"\bme encargo\b",
    r"\bdeixa comigo\b", r"\beu cuido\b", r"\bя сам\w* (займусь|сделаю|разберусь)",
    r"\bзаймусь (этим|сам)", r"我来(处理|跟进|搞定)", r"こちらで(対応|やります)",
    # ... at a time they name: "la copia la lanzo yo el domingo", "下个迭代再删"
    r"\b(lo|la|los|las) \w+(o|é) yo\b", r"\bi'll\b.{0,60}\b(tonight|(on )?(mon|tues|wednes|"
    r"thurs|fri|satur|sun)day|this (afternoon|evening|weekend))\b",
    # a thing named, then "later": "debounce потом", "the README later"
    r"(^|[,;:]\s*)(?!(see|talk|catch|speak|bye|cu|only|even|much|way|too|until|till|but)\b)"
    r"[^\s,;:]+( [^\s,;:]+){0,3} (later|потом|позже|später|plus tard|más tarde|después|depois|"
    r"mais tarde|dopo|以后再说|后面再说|あとで|後で)\s*([,;.!]|$)", r"\bje (le |la |les )?\w+"
    r".{0,40}\b(demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|ce soir)\b",
    r"\b(mache|starte|erledige) ich\b.{0,40}\b(morgen|montag|dienstag|mittwoch|donnerstag|"
    r"freitag|samstag|sonntag|heute abend)\b", r"(下个|下一个)(迭代|版本|sprint|冲刺)",
    r"(明天|下周|回头|之后|改天|周末)再", r"(明日|来週|週末)(に)?(やります|対応)",
    # "на кластере запущу руками сегодня вечером", "스테이징 배포는 목요일에 내가 할게"
    r"\b\w+[ую]\b.{0,40}\b(сегодня вечером|вечером|в (понедельник|вторник|среду|четверг|"
    r"пятницу|субботу|воскресенье))\b", r"\b(сегодня вечером|в (понедельник|вторник|среду|"
    r"четверг|пятницу)) (я |сам |сама )?\w+[ую]\b",
    r"([월화수목금토일]요일|오늘 (밤|저녁)|이따가?)에?.{0,30}"
    r"(할게|할께|하겠|할 예정|올릴게|돌릴게)", r"내가 (할게|할께|하겠|처리할게)",
    r"(今晚|今天晚上|(周|星期)[一二三四五六日天])(我)?(来|去|再)",
    r"(今夜|今晩|[月火水木金土日]曜日?に?).{0,20}(やります|対応します|流します)",
    r"\b\w+o\b.{0,40}\b(hoje à noite|à noite|na (segunda|terça|quarta|quinta|sexta)|"
    r"às \d{1,2}(h|:\d\d))", r"\bi'll\b.{0,60}\bat \d{1,2}(:\d\d)?\s*(am|pm)\b",
    r"\b(lo|la|li|le) \w+o io\b", r"\b\w+o\b.{0,40}\b(stasera|lunedì|martedì|mercoledì|"
    r"giovedì|venerdì)\b", r"\b\w+e ich\b.{0,40}\b(morgen|montag|dienstag|mittwoch|"
    r"donnerstag|freitag|heute abend)\b",
    # a ticket the person opens for it: "I'll make a ticket", "заведу тикет"
    r"\bi'll (make|open|file|create|write|raise) (a |an )?(ticket|issue|jira|bug)\b",
    r"\bje (fais|crée|ouvre) un ticket\b",
    r"\b(mach|schreib|leg)\w* ich (ein|einen) (ticket|issue)",
    r"\b(abro|creo|hago) un (ticket|issue)\b", r"\b(abro|crio|faço) um (ticket|issue)\b",
    r"завед[уём] (тикет|задачу|issue)", r"(提|建|开)(个|一个)?(工单|issue|ticket)",
    r"チケット(を)?(切|作)",
    r"\bon verra\b", r"\b(after|après|nach|después de|depois d[aoe]s?|после|dopo) (the |la |le |"
    r"der |dem |el |o |a |il )?(demo|démo|release|launch|lancement|sprint|deadline|freeze|audit|"
    r"релиза|демо)\b",
    r"^(明天|下周|周末)(上午|下午|早上|晚上)?\s?\S",
), re.IGNORECASE)
