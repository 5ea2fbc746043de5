"""What an assistant's wrap-up leaves open, and what in it only looks open.

Headings and phrases of remaining work and things it could not settle are open items; how
something generally works, "nothing remaining", offers of help and choices the person may
still change are not. Words for the person tell that a question is asked of the user.
"""

from __future__ import annotations

import re

from .words import ZH_LATER, _words

# Headings and phrases of what is left open in a wrap-up.
OPEN_HEADING_RE = re.compile(_words(
    r"still open", r"\bopen\b", r"^offen$", r"^ouvert$", r"^abierto$", r"^em aberto$",
    r"unresolved", r"not (yet )?(addressed|fixed|covered|handled)",
    # ("missing" heads what is left, not "The missing comment described:")
    r"what('?s| is| are) (still )?missing", r"^missing\b", r"\bstill missing\b",
    r"\bmissing (pieces?|parts?|bits?|work|steps?|items?|features?|tests?)\b",
    r"was noch fehlt", r"noch offen", r"fehlt noch",
    r"ещё не сделано", r"не сделано", r"reste", r"falta", r"ainda falta", r"还差", r"未解決",
    r"\bqueda(n)?\b", r"\bfic(a|am|ou|aram)\b", r"à voir", r"por ver", r"para ver",
    r"^next$", r"^(for|up to) you\b", r"\bon your (side|end)\b", r"\bfor you to\b",
    r"next steps?", r"follow[- ]?ups?", r"(left )?for later", r"left out", r"remaining",
    r"still to do", r"to ?do", r"not (yet )?done",
    r"left to do", r"what'?s left", r"pending", r"open (questions?|issues?|items?)",
    r"known (issues?|limitations?)", r"limitations?", r"caveats?", r"out of scope", r"future work",
    r"recommendations?", r"questions?",
    r"следующие шаги", r"осталось", r"нужно (ещё|еще)", r"открытые вопросы", r"дальше",
    r"nächste schritte", r"offene (punkte|fragen)", r"noch zu tun", r"prochaines étapes",
    r"reste à faire", r"questions ouvertes", r"próximos pasos", r"pendiente", r"preguntas abiertas",
    r"próximos passos", r"pendente", r"perguntas em aberto", r"下一步", r"待办", r"遗留", r"未完成",
    r"后续", r"次のステップ", r"残り", r"未対応", r"今後の課題", r"懸念", r"还没(做|有做|完成)",
    r"没做", r"未做", r"未实现", r"未実装", r"やっていない", r"まだ(です|やって)", r"не сделал",
    r"чего нет", r"ce qui manque", r"pas fait", r"nicht gemacht", r"no hecho", r"lo que falta",
    r"não fiz", r"o que falta",
    # what must happen before the work is live, and what is left to the person
    r"\bbefore (deploying|you deploy|deploy|release|releasing|merging|you merge|going live|"
    r"shipping|running (it )?(in|on) (prod|production))\b",
    r"\bantes de (rodar|executar|correr|ejecutar|lanzar) (\w+ )?(em|en) (prod|produção|producción)",
    r"\bavant de (lancer|passer) en prod", r"\bvor dem (lauf|ausführen) (in|auf) prod",
    r"перед запуском (на|в) проде", r"\byou('ll)? (still )?need to\b", r"\bstill need",
    r"\baction (items?|required)\b",
    r"\bmanual steps?\b", r"noch (zu )?erledigen", r"\bbitte noch\b", r"\bvor dem (deploy|release)",
    r"à faire", r"avant (de )?(déployer|la mise en prod|le déploiement)", r"\bil reste\b",
    r"por hacer", r"antes de (desplegar|hacer deploy|publicar)", r"pendientes", r"a fazer",
    r"antes d[eo] (fazer )?deploy", r"pendências", r"перед (деплоем|релизом|выкаткой)",
    r"нужно сделать", r"не доделано", r"待处理", r"需要你", r"上线前", r"部署前", r"待确认",
    r"需要确认", r"残作業", r"未完了", r"確認したいこと", r"確認事項", r"要確認", r"リリース前",
    r"デプロイ前", r"お願いしたいこと",
    r"не успел", r"nicht (erledigt|geschafft)", r"pas eu le temps", r"no me dio tiempo",
    r"não deu tempo", r"没来得及", r"間に合わなかった", r"\bnot finished\b",
    r"\bdidn'?t get to\b",
    # what is left for the person to decide or look into
    r"\bto (discuss|decide)\b", r"\bdecisions? needed\b", r"zu klären", r"klärungsbedarf",
    r"à (trancher|discuter|décider)", r"(por|a|para) decidir", r"para vocês decidirem",
    r"\bdúvidas?\b", r"обсудить", r"на решение", r"待讨论", r"需要讨论", r"待定",
    r"必要な作業", r"相談事項", r"検討事項", r"未決事項", r"確認が必要", r"ご判断",
    # id: "Yang belum:", "Langkah berikutnya", "perlu diputuskan"
    r"\byang belum\b", r"\bbelum (selesai|dikerjakan|dibuat)\b",
    r"\blangkah (berikut|selanjut)nya\b", r"\bsisa(nya)?\b",
    r"\bperlu (di)?(putuskan|diskusi|dibahas)\b",
), re.IGNORECASE)
# How something works, not work left: "when you need to force a rebuild, run …", "once it
# has returned, you have to spawn a fresh one".
GENERIC_YOU_RE = re.compile(
    r"\b(when|if|once|whenever|in case|unless|otherwise|wenn|falls|quand|si|cuando|quando|"
    r"если|когда)\b[^.;:!?]*\byou('ll| will)? (need|have) to\b", re.IGNORECASE)
# Nothing is left: "no pending changes", "nothing remaining", "rien en attente".
NOTHING_OPEN_RE = re.compile(
    r"\b(no|nothing|none|zero)\s+(\w+\s+)?(pending|remaining|left|outstanding)\b|"
    r"\bnothing (else )?(left|pending|remaining|outstanding|to do)\b|\bnada pendiente\b|"
    r"\bnada (mais )?pendente\b|\brien (de plus )?(en attente|à faire|ne reste)\b|"
    r"\bnichts (mehr )?(offen|ausstehend)\b|ничего не (осталось|ожидает)|没有(待|剩余|未完成)",
    re.IGNORECASE)
STILL_OPEN_RE = re.compile(_words(
    r"\bstill (need|needs|has to|have to)\b", r"\bstill to be (done|\w+ed|\w+en)\b",
    r"\bnot yet\b",
    # work left outside what was changed: "that's app code, I didn't touch it"
    r"\bi (didn't|did not|haven't) (touch|change)\w*\b", r"nicht angefasst", r"не трогал",
    r"\bleft (it|that|this|them) (alone|untouched|as (it|they) (is|are))\b",
    r"\b(antes|primero) hay que\b", r"\bhabría que\b", r"\bil faudrait\b",
    r"\b(müsste|sollte)(n)? (man )?(\w+ )?noch\b", r"\bстоило бы\b", r"\btambém deveria\b",
    r"\bil faudra(it)? d.abord\b",
    r"\bpas touché\b", r"no (he )?toqu", r"não mexi", r"non ho toccato", r"nie ruszał",
    r"触っていません", r"没(有)?(动|改)", r"건드리지 않았",
    r"\b(is|are|was|were|isn't|aren't)( not)? (\w+ )?(updated|handled|covered|done|migrated|"
    r"tested|fixed|wired|implemented|documented) yet\b", r"\bhaven't (yet )?\w+",
    r"\bleft (to do|for later)\b", r"\bfollow[- ]up\b", r"\blater\b", r"\bremains? to\b",
    r"\bwe should (also|still|eventually)\b", r"\bworth (adding|doing|looking)\b",
    # work handed to the user: "you need to add X", "one thing I can't do"
    r"\byou('ll| will)? (need|have) to\b", r"\b(one thing|something) i can(no|')t\b",
    r"вам (нужно|надо|придётся|придется)", r"\b(du musst|ihr müsst|sie müssen) noch\b",
    r"\bil (vous|te) faudra\b", r"\b(vous devrez|tu devras)\b",
    r"\b(tendrás|tendrán|tienes|tienen|necesitas|necesitarás) que\b",
    r"\b(você|vocês) (precisa|precisam|vai precisar|vão precisar|terá|terão|tem|têm) (que|de)\b",
    r"你(还)?需要", r"需要你", r"していただく必要",
    r"(?-i:\bTODOs?\b)(?=[:(]| (left|remain|in|for)\b)", r"\btodo:",
    r"\bnever (removed|cleaned|deleted|expired)\b", r"\bnext step\b",
    # (not what a change makes possible: "so next time I can just run `just dev`")
    r"\bfixme\b", r"\bnext time\b(?![^.!?]*\b(can|will|'ll) (just|simply)\b)",
    r"(?<!mark )(?<!marked )(?<!as )\bpending\b",  # (not a key that marks a status)
    # remaining work, not "your remaining quota"
    r"\bremaining\b(?! (quota|budget|balance|credits?|time|space|capacity|usage|tokens?|days?))",
    r"\bremain(s)? (open|flaky|skipped|broken|failing|unfixed)\b", r"\bawaiting\b",
    r"\bwaiting (for|on)\b", r"\bpending (confirmation|review|approval)\b", r"aguarda",
    r"\bnot (yet )?(started|begun)\b", r"не начат", r"nicht (begonnen|angefangen)",
    r"pas (encore )?commencé", r"sin empezar", r"no (he )?empezad", r"não (foi )?começad",
    r"未开始", r"还没开始", r"未着手",
    r"en attente", r"wartet auf", r"ожида", r"esperando", r"\baspetta\b", r"in attesa",
    r"ещё не", r"еще не", r"осталось", r"потом", r"позже", r"noch nicht", r"später", r"offen",
    r"pas encore", r"plus tard", r"reste à", r"todavía no", r"aún no", r"más tarde", r"pendiente",
    r"ainda não", r"mais tarde", r"pendente", r"还没", r"尚未", ZH_LATER + "再",
    r"待(办|处理|定|修)", r"まだ", r"後で", r"nie entfernt",
    r"non ancora", r"ancora non", r"jeszcze nie", r"아직", r"никогда не (удаля|чист)",
    r"jamais (supprim|nettoy)",
    r"nunca se (borran|eliminan|limpian)", r"nunca são (removid|limp)", r"从不(删除|清理)",
    r"未対応",
    # left alone because it was not asked for: "je ne l'ai pas déplacé, ce n'était pas la
    # demande"; handed back: "yours for tomorrow"
    r"\bnot (part of )?(the|this|what you) (ask|request|task|scope|asked for)\b",
    r"ce n'était pas (la demande|demandé)", r"hors (du )?périmètre", r"nicht (Teil der Aufgabe|"
    r"gefragt|verlangt)", r"no (era|formaba parte de) lo que (pediste|pidió)", r"no era parte",
    r"fora do escopo", r"não fazia parte", r"не входило в задачу", r"вне (рамок|задачи)",
    r"不在(这次|本次)?(范围|需求)", r"範囲外", r"\bje ne l'ai pas \w+",
    r"\bich habe (es|das|ihn|sie) nicht \w+", r"\bno lo (he )?(movido|cambiado|tocado|arreglado)",
    r"\bnão (o|a) (movi|mudei|corrigi)", r"\bя (его|её|это) не (трогал|менял|переносил|исправлял)",
    r"\byours for\b", r"\b(that's|that one's|it's) yours\b", r"\bà toi pour\b",
    # advice and work named for later in a wrap-up: "you may want to add an index", "we'll
    # have to deal with it at some point", "before this goes to prod, …"
    r"\byou (may|might) (also )?want to\b", r"\bi('d| would)? (recommend|suggest)\b",
    r"\b(wasn't|weren't|isn't|aren't|was not|were not|hasn't been|haven't been) (\w+ )?(run|"
    r"tested|updated|verified|checked|migrated|deployed|covered|handled|documented|wired)\b",
    r"\bi (didn't|did not) (update|add|migrate|test|run|wire|implement|handle|cover|"
    r"document|deploy)\w*\b", r"\bnext up\b",
    r"\bbefore (this|it) (goes|ships|lands|is merged|is deployed|is released)\b",
    r"\bbefore (merging|shipping|deploying|the release|release)\b",
    r"\bstill (describes?|references?|mentions?|says|points? (to|at)|uses? the old)\b",
    r"\bstill (open|unresolved|unclear|unknown|an issue|a problem)\b",
    r"\b(eventually|at some point|down the (road|line)|ideally)\b",
    r"\b(will|'ll|would) need (a|an|the|to)\b", r"\b(we|you)('ll| will) have to\b",
    r"\bsomeone (should|needs to|will have to|has to)\b",
    r"(?<!si hace )(?<!se fizer )\bfalta(m|ndo|ria)?\b", r"还需要", r"还要", r"仍需", r"还得",
    r"\bresta(no)? da\b", r"\bmanca(no)?\b", r"\bda fare\b", r"\bzostał(o|y)\b",
    r"\btrzeba (jeszcze|będzie)\b", r"\bdo zrobienia\b", r"\bpóźniej\b",
    # nl / tr
    r"\b(moet|moeten) (\w+ ){0,4}nog\b", r"\bnog niet\b", r"\bnog te doen\b", r"\blater\b",
    r"\bkaldı\b", r"\bhenüz\b", r"\bdaha sonra\b", r"\byapılacak\b", r"\bsonra (bakarız|yaparım)\b",
    r"\blazım\b", r"\bgerek(iyor)?\b", r"\bsonra\b", r"\bbaad (mein|me)\b",
    r"\babhi (nahi|nahin|baaki)\b", r"\bbaaki hai\b", r"\bpending hai\b",
    # id
    r"\bbelum\b", r"\bnanti\b", r"\b(masih )?(nunggu|menunggu)\b", r"\bmasih (perlu|harus)\b",
    r"\bperlu (di)?\w{1,30} lagi\b",
), re.IGNORECASE)
# A wrap-up saying what it could not settle: an open question, even without a "?".
UNCERTAIN_RE = re.compile(_words(
    r"\b(couldn't|could not|can't|cannot|didn't|did not) (check|verify|confirm|test|tell|see)\b",
    r"non ho potuto (verificare|controllare|provare)", r"da verificare", r"nie (mogłem|mogłam) "
    r"(sprawdzić|zweryfikować)", r"do sprawdzenia", r"확인할 수 없", r"확인(해야|이 필요)",
    r"해 ?봐야",
    r"\bnot sure (if|whether|that)\b", r"\bunclear (if|whether|how|what)\b",
    r"\bi don't know (if|whether|who|which|how)\b", r"\bneeds? (to be )?(confirm|check|decid)ed\b",
    r"\bdepends on (whether|if|how|what|who|which)\b", r"\bhaven't (picked|decided|chosen)\b",
    r"зависит от того", r"hängt davon ab", r"dépend de", r"depende de", r"取决于", r"次第",
    r"\bworth (confirming|checking|asking)\b", r"\bnot (yet )?(decided|checked|verified)\b",
    r"не знаю,? (ли|нужно|стоит|как (правильно|лучше))", r"не уверен", r"нужно уточнить",
    r"неясно", r"непонятно",
    r"не знаю,? (чи|чи варто|чи треба)", r"не впевнен", r"незрозуміло",  # uk
    r"не проверил",
    r"ich weiß nicht,? ob", r"unklar", r"muss (noch )?geklärt", r"nicht geprüft",
    r"je ne sais pas si", r"à voir avec", r"à confirmer", r"pas vérifié", r"no sé si",
    r"no está claro", r"hay que confirmar", r"não sei se", r"não se sabe", r"a confirmar",
    r"不确定", r"需要确认", r"不清楚", r"判断できません", r"確認が必要", r"未定", r"わかりません",
    r"\b(couldn't|could not|can't|cannot|wasn't able to|was unable to) reproduce\b",
    r"\bcan('|no)t (tell|see|check|know) (that |this |it )?from here\b",
    r"\bkann ich (von hier( aus)? )?nicht (sehen|prüfen|sagen|beurteilen)\b",
    r"\bmüsste (jemand|wer)\b", r"\bje ne peux pas (le )?(voir|vérifier|savoir|dire)\b",
    r"\bno puedo (verlo|saberlo|comprobarlo|verificarlo|ver|saber|comprobar)\b",
    r"\bnão (consigo|posso) (ver|verificar|saber|confirmar)\b",
    r"не могу (проверить|сказать|увидеть|знать)", r"无法(确认|判断|看到)",
    r"ここからは(分かり|確認でき)",
    r"\bi'm not (certain|sure|confident)\b", r"\bnot certain\b",
    r"\bno (tengo|está|queda) claro\b", r"\bno estoy segur[oa]\b", r"\bnão tenho certeza\b",
    r"\bnão (está|ficou) claro\b", r"\bje ne suis pas sûr", r"\bpas clair\b",
    r"\bnicht sicher,? ob\b", r"\bnon sono sicur[oa]\b", r"\bnon è chiaro\b",
    r"\bnon so se\b", r"\bnie jestem (pewien|pewna|pewny)\b", r"\bnie wiem,? czy\b",
    r"\bniet zeker\b", r"\bweet (ik )?niet (of|zeker)\b", r"\bonduidelijk\b",
    r"\bemin değilim\b", r"\bbelli değil\b", r"\bnet değil\b", r"不太确定", r"不知道是否",
    r"확실하지 않", r"모르겠",
    r"\b(belum|tidak|nggak) (yakin|pasti|jelas)\b", r"\bbelum (dicek|dites|diputuskan)\b",
    r"\btergantung\b", r"\bpata nahi\b", r"\bpakka nahi\b",
), re.IGNORECASE)

# A choice made that waits on the person: "if you'd rather have floor division, say so".
CHOICE_ASK_RE = re.compile(_words(
    r"\bif you('d| would)? (rather|prefer)\b", r"\bwenn (du|ihr|sie) lieber\b",
    r"\bsi (tu préfères|vous préférez)\b", r"\bsi (prefieres|preferís|prefiere)\b",
    r"\bse (preferir|você preferir)\b", r"\bесли (вам|тебе) (больше нравится|удобнее)\b",
    r"\bse preferisci\b", r"如果你更(喜欢|倾向|希望)", r"(の方|のほう|方|ほう)がよければ",
), re.IGNORECASE)
# Words for the person the assistant talks to: a question with them is asked of the user,
# who answers it in their next message ("Which approach do you prefer?").
TO_USER_RE = re.compile(
    r"\b(you|your|yourself|vous|votre|vos|tu|ton|ta|tes|du|dein\w*|dir|dich|Sie|Ihnen|Ihr\w*|"
    r"usted|ustedes|tú|te|você|vocês|voi|tuo|tua)\b|\b(ты|вы|вас|вам|тебе|тебя|ваш\w*|тво\w*)\b|"
    r"你|您|あなた|당신", re.IGNORECASE)
# A question that offers help, or checks that an answer landed ("Does that clear things
# up?"), is not an open question about the project.
OFFER_RE = re.compile(
    r"^(continue|proceed|go ahead)\b[^.!?]*\?$|"
    r"\b(does|did) (that|this|it) (clear \w+ up|make sense|help( you)?\?|answer your)|"
    r"(\b(is|was) (that|this|it) (clear|helpful|what you (wanted|meant|needed))|\bmakes? sense|"
    r"\bist das (so )?(klar|verständlich)|\bc'est (plus )?clair|\b(queda|quedó) (más )?claro|"
    r"^¿?(está|ficou) (mais |más )?claro|^(теперь )?понятно|(明白|清楚)了吗|わかりましたか|"
    r"伝わりましたか)\s*[?？]|"
    r"\b(would you like|(do you )?want me to|shall i|should i|let me know|can i help|"
    r"anything else|i can also|if you('d)? like|if you (ever )?want|happy to|"
    r"if you('d| would)? (rather|prefer)|say the word)\b|хотите|"
    r"нужно ли мне|möchtest du|"
    r"soll ich|"
    r"voulez-vous|souhaitez-vous|veux-tu|quieres que|desea que|quer que|deseja que|需要我|要不要我|"
    r"しましょうか|しますか",
    re.IGNORECASE,
)
