"""The words of time phrases: month, weekday and season names, numbers, units, years.

Tables map a word (English or Russian, full or abbreviated) to its number; the regex pieces
match the same words inside the period grammar. A number followed by a unit of something
else ("2000 ms", "2000 рублей") is not a year.
"""

from __future__ import annotations

_MONTHS_EN = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
#: Russian month stems; the regex below accepts the nominative, genitive and locative forms.
_MONTHS_RU = (
    "январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август", "сентябр", "октябр",
    "ноябр", "декабр",
)  # fmt: skip
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_RU = ("понедельн", "вторн", "сред", "четверг", "пятниц", "суббот", "воскресень")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2,
    "один": 1, "одна": 1, "одну": 1, "одного": 1, "два": 2, "две": 2, "пару": 2, "пара": 2,
    "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8, "девять": 9,
    "десять": 10,
}  # fmt: skip
_FUZZY_NUMBERS = frozenset({"few", "several", "несколько"})

_MONTH_EN = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december)"
)
#: Abbreviations only count next to a day or year: "in dec" is as likely to mean decimal.
_MONTH_EN_ABBR = rf"(?:{_MONTH_EN}|(?:jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?)"
_MONTH_RU = (
    r"(?:январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?"
    r"|сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])"
)
_SEASONS = {
    "spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
    "весн": 3, "лет": 6, "осен": 9, "зим": 12,
}  # first month of each; fmt: skip
#: "Spring Boot", "fall back", "summer intern" are not seasons when they stand alone.
_SEASON_EN = (
    r"(?:spring|summer|autumn|fall|winter)"
    r"(?!\s+(?:boot|framework|security|cloud|data|batch|mvc|webflux|integration|back|through))"
)
_SEASON_RU = r"(?:весн[аеуы]|весной|лето|летом|лета|осень|осенью|осени|зим[аеуы]|зимой)"
_WEEKDAY_EN = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WEEKDAY_RU = (
    r"(?:понедельник[аи]?|вторник[аи]?|сред[аыу]|четверг[аи]?|пятниц[аыу]|суббот[аыу]"
    r"|воскресень[еяю])"
)
_YEAR = r"(?:19[7-9]\d|20\d\d)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?!\d)"
_RU_YEAR_WORD = r"(?:\s*(?:года|году|год|г\.|г\b))?"
_NUM = (
    r"(?:\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|several"
    r"|один|одна|одну|одного|два|две|пару|пара|три|четыре|пять|шесть|семь|восемь|девять"
    r"|десять|несколько)"
)
_UNIT_WORD_EN = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|years?"
    r"|yrs?)"
)
#: Single-letter units ("24h", "7d") only directly after a number.
_UNIT_EN = rf"(?:{_UNIT_WORD_EN}|[hdwy])"
_UNIT_RU = r"(?:секунд\w*|минут\w*|час\w*|дн\w*|день|сутки|суток|недел\w*|месяц\w*|год\w*|лет)"
_UNIT = rf"(?:{_UNIT_EN}|{_UNIT_RU})"
#: A year is not a year when a unit follows: "timeout in 2000 ms", "за 2000 рублей".
_NOT_A_QUANTITY = (
    r"(?!\s*%)(?!\s*(?:ms|s|sec|secs|seconds?|minutes?|mins?|hours?|h|kb|mb|gb|bytes?|px|lines?"
    r"|rows?|items?|records?|requests?|tokens?|times|steps|users?|words?|chars?)\b)"
    r"(?!\s*(?:руб|мс|сек|строк|байт|пользовател|запрос|раз)\w*)"
)
