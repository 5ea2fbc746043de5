# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: read-only question why a computed Odoo 17 field can't be used in "Group By" or filters; answered with Read/Grep/psql; nothing changed (French)."""

from make_sessions import Session

SALE_ORDER_PY = '''from odoo import api, fields, models


class SaleOrder(models.Model):
    _inherit = "sale.order"

    x_cout_revient = fields.Monetary(
        string="Coût de revient",
        compute="_compute_marge",
        currency_field="currency_id",
    )
    x_marge_pct = fields.Float(
        string="Marge (%)",
        compute="_compute_marge",
        digits=(5, 2),
    )
    x_canal = fields.Selection(
        [("web", "Site web"), ("salon", "Salon"), ("revendeur", "Revendeur")],
        string="Canal",
        default="web",
    )

    @api.depends("order_line.product_id", "order_line.product_uom_qty", "amount_untaxed")
    def _compute_marge(self):
        for order in self:
            cout = sum(
                line.product_id.standard_price * line.product_uom_qty
                for line in order.order_line
            )
            order.x_cout_revient = cout
            order.x_marge_pct = (
                (order.amount_untaxed - cout) / order.amount_untaxed * 100
                if order.amount_untaxed
                else 0.0
            )
'''

VIEW_XML = '''<?xml version="1.0" encoding="utf-8"?>
<odoo>
    <record id="view_order_tree_marge" model="ir.ui.view">
        <field name="name">sale.order.tree.marge</field>
        <field name="model">sale.order</field>
        <field name="inherit_id" ref="sale.view_quotation_tree_with_onboarding"/>
        <field name="arch" type="xml">
            <field name="amount_total" position="after">
                <field name="x_marge_pct" optional="show"/>
                <field name="x_canal" optional="show"/>
            </field>
        </field>
    </record>

    <record id="view_sales_order_filter_canal" model="ir.ui.view">
        <field name="name">sale.order.search.canal</field>
        <field name="model">sale.order</field>
        <field name="inherit_id" ref="sale.view_sales_order_filter"/>
        <field name="arch" type="xml">
            <filter name="salesperson" position="after">
                <filter name="group_canal" string="Canal" context="{'group_by': 'x_canal'}"/>
            </filter>
        </field>
    </record>
</odoo>
'''


def build() -> Session:
    s = Session("odoo-champ-calcule-explain-fr", cwd="/home/claire/dev/odoo-atelier", branch="main",
                start="2026-06-18T13:22:09.730Z", version="2.1.41", slug="marge-groupby-question")
    s.user(
        "question rapide : dans la liste des devis/commandes, pourquoi je peux pas grouper par Marge (%) ? le champ s'affiche bien en colonne "
        "mais il apparait pas dans \"Grouper par\" > ajouter un groupe personnalisé, alors que Canal oui. c'est le module atelier_vente",
        wait=5,
    )
    s.grep("x_marge_pct", ["addons/atelier_vente/models/sale_order.py", "addons/atelier_vente/views/sale_order_views.xml"])
    s.call(s.read_call("addons/atelier_vente/models/sale_order.py", SALE_ORDER_PY),
           s.read_call("addons/atelier_vente/views/sale_order_views.xml", VIEW_XML))
    s.bash("psql -d atelier_dev -Atc \"SELECT column_name FROM information_schema.columns WHERE table_name = 'sale_order' AND column_name LIKE 'x\\_%'\"",
           '''x_canal''', desc="Colonnes x_ en base (dev, lecture seule)", secs=1)
    s.say(
        "C'est parce que `x_marge_pct` est un champ **calculé non stocké** :\n\n"
        "```python\nx_marge_pct = fields.Float(string=\"Marge (%)\", compute=\"_compute_marge\", digits=(5, 2))\n```\n\n"
        "Il n'a pas `store=True`, donc il n'existe pas en base — la requête ci-dessus le confirme : seule `x_canal` a une "
        "colonne dans `sale_order`. Odoo calcule la valeur en Python au moment d'afficher chaque ligne, c'est pour ça qu'elle "
        "apparaît en colonne.\n\n"
        "Mais un « Grouper par » (et un filtre ou un tri) est traduit en SQL (`GROUP BY`, `WHERE`, `ORDER BY`) : il faut une "
        "colonne. Odoo ne propose dans « ajouter un groupe personnalisé » que les champs *groupables*, c'est-à-dire stockés. "
        "`x_canal` est un champ `Selection` normal, donc stocké, d'où la différence."
    )
    s.turn_end()
    s.user("ah ok. et ça se contourne comment en général ? juste pour savoir", wait=50)
    s.grep("store=True", content='''addons/atelier_vente/models/res_partner.py:14:    x_ca_annuel = fields.Monetary(compute="_compute_ca", store=True, currency_field="currency_id")
addons/atelier_stock/models/stock_picking.py:22:    x_poids_total = fields.Float(compute="_compute_poids", store=True)''', path="addons", glob="*.py")
    s.say(
        "Trois façons habituelles, chacune avec son coût :\n\n"
        "1. **`store=True`** sur le champ calculé. Odoo crée la colonne et recalcule quand un champ de `@api.depends` change. "
        "C'est ce que font déjà `x_ca_annuel` et `x_poids_total` dans vos modules. Limite ici : la marge dépend de "
        "`product_id.standard_price`, qui n'est pas dans les dépendances — si le coût d'un article change, les marges stockées "
        "des anciennes commandes ne bougent pas (ce qui peut d'ailleurs être voulu : la marge au moment de la vente). À la mise "
        "à jour du module, Odoo recalcule toutes les commandes existantes.\n"
        "2. **Une méthode `search=`** sur le champ : ça permet de *filtrer* (« marge < 20 % ») sans stocker, mais pas de grouper.\n"
        "3. **Un rapport SQL** (modèle `_auto = False` sur une vue) si c'est pour de l'analyse : on y calcule la marge en SQL et "
        "on groupe comme on veut dans la vue pivot.\n\n"
        "Pour grouper par tranche de marge, seul 1 ou 3 marche ; pour un simple filtre, 2 suffit."
    )
    s.turn_end()
    s.user("et pourquoi elle sort quand même dans l'export excel alors ?", wait=40)
    s.say(
        "L'export passe par `export_data()`, qui lit les enregistrements un par un via l'ORM (comme l'affichage), donc les "
        "champs calculés non stockés sont calculés à la volée pour chaque ligne exportée. Il n'y a pas de SQL sur ce champ à ce "
        "moment-là, seulement une lecture. C'est aussi pour ça qu'un export de beaucoup de commandes avec ce champ est plus lent : "
        "`_compute_marge` parcourt les lignes de chaque commande."
    )
    s.turn_end()
    s.user("ok c'est clair merci, c'était juste pour comprendre, on touche à rien", wait=30)
    s.say("Avec plaisir, je n'ai rien modifié.")
    s.turn_end()
    s.local_command("exit", "Au revoir !", wait=8)
    return s


GOLD = {
    "covers": [
        "empty: a read-only question about Odoo 17 (why a computed field can't be grouped by) in French",
        "Grep/Read of the model and views, a read-only psql query on the dev database",
        "workarounds (store=True, search=, SQL report) given only as information; a second question about Excel export answered",
        "'c'était juste pour comprendre, on touche à rien': nothing changed, decided or left to do; /exit",
    ],
    "language": "fr",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
