"""The table's words the dealer reads, as message ids a catalogue can hold.

Owns the list of every text the server puts before the dealer (the snapshot's prompt,
holds, alerts, flags and settlement lines, the devices' states, the verdicts of touches,
the page's own refusals, recall's notes) in the form of a gettext message id: the English
text with its variable parts as named placeholders, ``"Position {position}: play or fold"``.
The round core, the engine and the stores keep writing plain English (the journal and the
audit trail are the evidence, in one language); controller/page/i18n.py matches each text
against these ids and fills the translation's placeholders with the same values, each
translated in turn. tests/page/test_catalogue.py checks that every message those modules
can build has an id here, and scripts/catalogue.py extracts them (``N_``) into the catalogue.

A placeholder's name says what it may hold (i18n.KINDS): ``position``, ``hand``... digits,
``positions`` a list ("2, 3 and 5"), ``amount``, ``ante``... money ("$1,250.00"); any other
name holds any text.
"""

from __future__ import annotations


def N_(text: str) -> str:
    """Marks a message id for extraction (gettext's convention); the text itself is unchanged."""
    return text


# --- names: spots, ranks, hands, roles, devices, states, actions ---------------------------------
NAMES = (
    N_("Ante"), N_("Play"), N_("Pair Plus"), N_("6 Card Bonus"), N_("Super 6"), N_("Ante Bonus"),
    N_("Two"), N_("Three"), N_("Four"), N_("Five"), N_("Six"), N_("Seven"), N_("Eight"), N_("Nine"), N_("Ten"),
    N_("Jack"), N_("Queen"), N_("King"), N_("Ace"),
    N_("Twos"), N_("Threes"), N_("Fours"), N_("Fives"), N_("Sixes"), N_("Sevens"), N_("Eights"), N_("Nines"),
    N_("Tens"), N_("Jacks"), N_("Queens"), N_("Kings"), N_("Aces"),
    N_("Straight"), N_("Flush"), N_("Straight Flush"),
    N_("supervisor"), N_("technician"), N_("dealer"), N_("controller"),
    N_("supervisor {name}"), N_("technician {name}"), N_("dealer {name}"),
    N_("shoe"), N_("sensors"), N_("sign"), N_("shoe and sensors"),
    N_("online"), N_("offline"), N_("jammed"), N_("door open"), N_("not connected yet"),
    N_("online, reading every spot"),
    N_("starting"), N_("ready"), N_("betting"), N_("closed"), N_("dealing"), N_("decisions"),
    N_("collecting"), N_("settling"), N_("complete"), N_("void"), N_("held"), N_("open"),
    N_("open betting"), N_("no more bets"), N_("deal"), N_("play"), N_("fold"), N_("reveal"), N_("confirm"),
    N_("misdeal"), N_("link positions"), N_("unlink positions"), N_("override wager"), N_("void round"),
    N_("verify jackpot"), N_("refer jackpot"), N_("call supervisor"), N_("reset meters"), N_("set jackpots"),
    N_("sign in dealer"), N_("sign out dealer"),
    N_("and"), N_("done"),
    # the shoe's jam and fault codes by name (drivers/wire/shoe_protocol.py): "Shoe jammed ({description})"
    N_("card stuck in the feed"), N_("elevator blocked"), N_("delivery tray blocked"), N_("card reader fault"),
    N_("jam code {code}"), N_("no deck loaded"), N_("card recognition failure"), N_("count error"),
    N_("hand out of sequence"), N_("shuffle failed"), N_("hardware fault"),
)

# --- the prompt, state by state (controller/round/view.py) and the dealer's words (rules/words.py)
PROMPTS = (
    N_("Place your bets"), N_("Position {position} {spot}: {why}"), N_("Shoe shuffling"), N_("No more bets"),
    N_("No PAIR PLUS, position {positions}"), N_("No PAIR PLUS, positions {positions}"),
    N_("Deal"), N_("Dealing: hand {hand} of {count}"),
    N_("Every position played"), N_("Reveal the dealer's hand"),
    N_("No position has an Ante: nothing to play or fold"),
    N_("Collect the folded hands and their wagers: position {positions}"),
    N_("Collect the folded hands and their wagers: positions {positions}"),
    N_("Collect the forfeited wagers of position {positions}: the 6 Card Bonus and Super 6 stay in action"),
    N_("Collect the forfeited wagers of positions {positions}: the 6 Card Bonus and Super 6 stay in action"),
    N_("Set the cards of position {positions} aside face down: they settle the 6 Card Bonus and Super 6"),
    N_("Set the cards of positions {positions} aside face down: they settle the 6 Card Bonus and Super 6"),
    N_("Then reveal the dealer's hand"),
    N_("JACKPOT: {jackpot} at position {position}; supervisor to verify the six cards"),
    N_("Settle position {position}"), N_("Starting: {why}"), N_("checking the devices"), N_("Open betting"),
    N_("Position {position}: play or fold"), N_("Round complete"), N_("Round void: {reason}"),
    N_("Return all wagers"), N_("Return {amount} to position {position}: its wagers were collected with its fold"),
    N_("Round held"), N_("Dealer: sign in with your PIN (Dealer sign in)"),
    N_("Dealer doesn't play"), N_("Dealer plays with a {rank}"), N_("Dealer plays with an {rank}"),
    N_("Dealer plays with a Pair of {ranks}"), N_("Dealer plays with Three {ranks}"),
    N_("Dealer plays with a {hand3}, {rank} high"),
    N_("Folded: its forfeited wagers were collected with the cards"), N_("Pay {spot} {amount}"),
    N_("Take {spot} {amount}"), N_("Push {spot}"),
    N_("Pay {spot} {amount} (maximum payout reached: {taken} not paid)"),
    N_("Pay {amount}"), N_("Take {amount}"), N_("Pay {amount} and take {taken}"), N_("Push"),
    N_("Collected with the cards"), N_("Turn up the cards set aside: {hand6} with the dealer's cards"),
    N_("Turn up the cards set aside: no six-card hand with the dealer's cards"),
    N_("Return {amount} ({why}) to position {position}"), N_("Return the chips ({why}) to position {position}"),
    N_("{spot} placed after No more bets"), N_("{spot} added after No more bets"), N_("Play placed with no Ante"),
    N_("Play placed after the fold"), N_("Play above the Ante"),
)

# --- hand names as the dealer announces them (rules/words.py hand_words, six_card_words) -----------
HANDS = (
    N_("{rank} high"), N_("Pair of {ranks}"), N_("Three {ranks}"), N_("{hand3}, {rank} high"),
    N_("Royal Flush"), N_("Four of a Kind"), N_("Full House"), N_("Three of a Kind"), N_("Two Pair"),
    N_("One Pair"), N_("No hand"), N_("Super Royal in Diamonds"), N_("Super Royal"),
)

# --- what a bet on the felt may be flagged with (controller/round/felt.py) ------------------------
FLAGS = (
    N_("the Play spot stays empty until the cards are seen"),
    N_("chips seen but the sensor cannot read their value"), N_("{spot} is not offered at this table"),
    N_("{amount} is below the {minimum} minimum"), N_("{amount} is above the {maximum} maximum"),
    N_("{amount} cannot be made of this table's chips (the smallest is {chip})"),
    N_("Super 6 closed: {why}"), N_("{amount} is not a Super 6 bet size ({sizes})"),
    N_("the jackpot sign has not confirmed the values yet"), N_("the sign has not yet confirmed the new values"),
    N_("the floor link is down ({why}): a linked jackpot takes no wagers while cut off"),
    N_("the floor's jackpot values cannot be taken ({why}): call the floor's administrator"),
    N_("{jackpot} is {given}, not a whole number of cents from 1 to {most}"),
    N_("MEGA {mega}, MAJOR {major}, MINOR {minor} are not MEGA >= MAJOR >= MINOR"),
    N_("{jackpots} was won; Super 6 reopens when the supervisor posts the new value"),
    N_("the jackpot sign is not showing the posted values ({why})"),
    N_("sign offline: {reason}"), N_("the sign did not take {command}: {reason}"),
    N_("the sign did not take the command to {command}: {reason}"),
)

# --- holds and alerts (controller/round, controller/engine.py, controller/app/clock.py) -----------
ALERTS = (
    N_("Round held: {reason}"), N_("Shoe jammed ({description}): clear the jam and close the shoe's door"),
    N_("Shoe jammed: clear the jam and close the shoe's door"), N_("Shoe door open: close the shoe's door"),
    N_("The shoe has not finished shuffling within {seconds} s: check the shoe or call a technician"),
    N_("The shoe has not finished shuffling within {seconds} s: check the shoe (door, jam, cards) or call a "
       "technician"),
    N_("Position {position} {spot} cannot be read ({problem}): call a technician"),
    N_("The shoe is not answering: check its power and cable, or call a technician"),
    N_("Call a technician: the bet sensors are not answering"),
    N_("The bet sensors are back and reading every spot (asked again until they do); if it lasts, call a technician"),
    N_("The shoe reports a fault: {text} (its code {code})"), N_("The shoe reports a fault: {text}"),
    N_("Deck check failed: {problem}"),
    N_("Misdeal: {problem}. No card is dealt; return the wagers and have the deck checked and completed "
       "before the next round."),
    N_("Misdeal: {problem}. All hands are void; return the wagers."),
    N_("the shoe reports a count error ({text})"),
    N_("A hand came from the shoe for no position (hand {hand}): collect it unseen as a dead hand"),
    N_("The shoe has not delivered hand {hand} within {seconds} s; asking again"),
    N_("position {position} was dealt {count} cards"), N_("the dealer was dealt {count} cards"),
    N_("the shoe could not read a card of position {position}'s hand"),
    N_("the shoe could not read a card of the dealer's hand"),
    N_("{card} in position {position}'s hand is from deck {deck}, not the deck in play ({play_deck})"),
    N_("{card} in the dealer's hand is from deck {deck}, not the deck in play ({play_deck})"),
    N_("{card} was read twice (position {position}'s hand)"), N_("{card} was read twice (the dealer's hand)"),
    N_("cards left the shoe while the controller was down (the shoe holds {count} cards, {expected} expected)"),
    N_("The bet sensors reported chips on position {position}, which this table does not have (positions 1 "
       "to {count}): not a wager. Call a technician to check the sensors' set-up."),
    N_("The bet sensors reported a fault on position {position}, which this table does not have: call a "
       "technician to check the sensors' set-up."),
    N_("The bet sensors reported an unknown spot ({spot}) on position {position}: not a wager. Call a "
       "technician to check the sensors' set-up."),
    N_("Position {position} {spot}: the sensor reports {problem}; the spot cannot be read. Call a technician"),
    N_("Past posting: position {position} {spot} placed {amount} after No more bets; not accepted (the "
       "wager stays {value})"),
    N_("Past posting: position {position} {spot} changed to {amount} after No more bets; not accepted (the "
       "wager stays {value})"),
    N_("Past posting: position {position} {spot} removed after No more bets; not accepted (the wager stays "
       "{value})"),
    N_("Past posting: position {position} {spot} placed {amount} after No more bets; not accepted (no wager there "
       "this round)"),
    N_("Past posting: position {position} {spot} changed to {amount} after No more bets; not accepted (no wager "
       "there this round)"),
    N_("Past posting: position {position} Play placed with no Ante; not accepted"),
    N_("Position {position} Play placed after the decision (folded); not accepted"),
    N_("Position {position} Play changed after the decision (folded); not accepted"),
    N_("Position {position}: the sensor cannot read the Play chips; a supervisor reads them (override)"),
    N_("Position {position}: the Play must equal the Ante ({ante}), not {amount}"),
    N_("Super 6 closed: {why}. No new Super 6 wagers."),
    N_("Super 6 open again: the sign shows the posted jackpot values"),
    N_("Super 6 {jackpot} jackpot at position {position} ({cards}): {amount}. A supervisor verifies the six "
       "cards before anything is paid."),
    N_("{jackpot} jackpot at position {position} verified by the {by}: pay {amount}"),
    N_("Jackpot values posted by the {by}: {changes}"), N_("{jackpot} {amount} -> {value}"),
    N_("{jackpot} reseeded at {value}"),
    N_("The shoe is not answering: {reason}"), N_("The bet sensors are not answering: {reason}"),
    N_("The jackpot sign is not answering: {reason}"),
    N_("The shoe is not taking the command to {command}: {reason}"),
    N_("The bet sensors are not taking the command to {command}: {reason}"),
    N_("The jackpot sign is not taking the command to {command}: {reason}"),
    N_("The shoe is sending frames that fail authentication ({reason}); each is refused. Call a technician"),
    N_("The bet sensors are sending frames that fail authentication ({reason}); each is refused. Call a technician"),
    N_("The shoe is sending what the table cannot use (refused; the log has the bytes): call a technician "
       "if it repeats"),
    N_("The bet sensors are sending what the table cannot use (refused; the log has the bytes): call a "
       "technician if it repeats"),
    N_("The jackpot sign is sending what the table cannot use (refused; the log has the bytes): call a "
       "technician if it repeats"),
    # drivers/sign.py: why the sign is offline
    N_("sign silent: no answer within {seconds} s"), N_("keep its message shown"),
    N_("no answer within {seconds} s after {count} attempts"), N_("NAK ({reason}) after {count} attempts"),
    N_("parity error"), N_("framing error"), N_("serial timeout"), N_("buffer overflow"), N_("checksum error"),
    N_("illegal command or file label"),
    N_("{values} cannot be shown whole on a {width}-character line: the sign shows the name alone (a wider sign, "
       "or devices.sign.width, is needed)"),
    N_("no sign's answer within {seconds} s, only bytes no Alpha sign sends: another device on this port, or a "
       "line that is not the sign's (9600 7E1 unless configured)"),
    N_("shuffle"), N_("deal a hand"), N_("count its cards"), N_("check the deck"), N_("lock or unlock spots"),
    N_("light a spot"), N_("report every spot"), N_("start talking"), N_("answer each packet (ACK/NAK)"),
    N_("set up its memory"), N_("take the display layout"), N_("show the jackpot values"),
    N_("show its message"), N_("silent for {seconds} s (heartbeat timeout)"),
    N_("no answer in {seconds} s since its port was opened: check that the url is this device's port, its line "
       "settings, its cable, its power and its pairing key"),
    N_("heard, but it takes no Hello ({count} sends unacknowledged): check that it holds the pairing key of "
       "key_file (or neither has one) and speaks this protocol"),
    N_("{device}: cannot open {url}: another program has it open (a terminal program, a second controller?): "
       "close it, and the table connects by itself"),
    N_("Recovered after a restart: round {round} continues in {state}"),
    N_("Recovered after a restart: round {round} continues in ?"), N_("Settlement refused: {reason}"),
    N_("Round voided after a restart: {reason}. Return all wagers."),
    N_("Misdeal declared by the {by}: {reason}. Return all wagers."),
    N_("Round voided by the {by}: {reason}. Return all wagers."),
    N_("Supervisor called to the table by the {by}"), N_("Supervisor called to the table by the {by}: {reason}"),
    N_("on recovery: {problem}"), N_("Internal error handling {event}: {reason}; call a technician"),
    N_("The table's settings were changed since it last ran: call a supervisor to confirm them before play"),
    # controller/floor/head.py: a journal behind the floor's copy of its chain (the alert and the halt)
    N_("This table's journal is behind the floor: it ends at record {record}, the floor holds table {table}'s "
       "records up to {floor_record}. The journal and audit trail were rolled back or restored from an older "
       "copy; the table will not play on them"),
    N_("This table's journal is not the floor's copy: its record {floor_record} is not the one the floor holds "
       "for table {table} (a journal rolled back and played on, or another table's journal). The table will not "
       "play on it"),
    N_("The PC's clock is not synchronised: the times written in the journal may be wrong; call a "
       "technician (the table goes on)"),
    N_("The PC's clock is synchronised again"),
    N_("Refused a request from {address} that is not from this table's page ({why}): a web page may be "
       "trying to work the table; call a technician"),
    N_("Refused a request from {address} that is not from this table's page ({why}); {count} more refused "
       "in the minute before: a web page may be trying to work the table; call a technician"),
    N_("PIN entry locked for every role for {duration} after {count} wrong PINs in a row, the last a {role} "
       "PIN for {action} from {address}: call a technician if nobody at the table mistyped them"),
    # the dealer's reasons for a misdeal (static/index.html sends them; the journal keeps them)
    N_("a card was exposed"), N_("wrong number of cards dealt"), N_("cards dealt out of order"),
    N_("shoe malfunction"),
)

# the API's own protocol errors, said in JSON (controller/page/api_errors.py)
API_ERRORS = {404: N_("the page's API has no such request"), 405: N_("this request does not take that method"),
              413: N_("the request is too large: at most {size} KiB")}

# --- the verdicts of touches: refusals (controller/round/conditions.py, the engine, the stores) ---
REFUSALS = (
    N_("waiting for the {devices} to answer"), N_("a round is being recovered"),
    N_("the bet-spot sensors are not answering"), N_("the shoe has not finished shuffling"),
    N_("the bet-spot sensors have not yet reported every spot since they connected (asked again until they do): "
       "the felt is not read; if it lasts, call a technician"),
    N_("the shoe counted {count} cards after the shuffle, not 52"),
    N_("the shoe has not yet checked the deck (52 cards, all of the deck in play)"), N_("no wagers on the table"),
    N_("position {position} {spot}: {why}"), N_("name the two positions to link (position and other)"),
    N_("one player on two positions is not allowed at this table (table.one_player_two_positions = "
       "\"refused\")"),
    N_("positions {position} and {other} are not two adjacent positions"),
    N_("position {position} or {other} is already linked"), N_("say why (the reason is journaled)"),
    N_("position {what} is not a position at this table (1 to {count})"),
    N_("{what} is not a spot a supervisor reads while {state} ({spots})"),
    N_("amount must be whole cents, 0 or more, not {what}"), N_("say why the sensor's reading is overridden"),
    N_("position {position} has no Play to read: it has already decided"),
    N_("position {position} has no Play to read: it has no Ante"),
    N_("position {position}: the Play must equal the Ante ({ante}), not {amount}"),
    N_("position {position} has no Ante to play or fold"), N_("position {position} has already played"),
    N_("position {position} has already folded"),
    N_("position {position} has no Play chips on the felt: a Play is {ante} on the Play spot, equal to the Ante"),
    N_("position {position}: the sensor cannot read the Play chips; a supervisor reads them (override)"),
    N_("position {position} has chips on the Play spot: take them back to fold"),
    N_("Super 6 {jackpot} jackpot at position {position}: a supervisor verifies the six cards before "
       "anything is paid"),
    N_("settle position {position} first (from the dealer's right)"),
    N_("position {position} is already settled; settle position {other} next"),
    N_("position {position} has nothing to settle; settle position {other} next"),
    N_("payments have been made; the round cannot be voided"), N_("no jackpot hit waits for verification"),
    N_("say why the jackpot values change"), N_("meters are reset between rounds, not while {state}"),
    N_("say why the meters are reset"), N_("this table's rules have no posted jackpot"),
    N_("jackpot values are changed between rounds, not while a round is in play"),
    N_("{jackpot} must be a whole number of cents above 0, not {what}"), N_("values must be MEGA >= MAJOR >= MINOR"),
    N_("these are the values already posted"),
    N_("the jackpot was last changed {ago} ago by {by}; without a win in between it may change again in {wait}"),
    N_("unknown action {what}"), N_("{action}: {why}"), N_("{action} needs a supervisor or technician PIN"),
    N_("{action} is not possible while {state}"), N_("{action} refused"),
    N_("{action}: the table did not answer within {seconds} s; the outcome is unknown: look at the table "
       "before touching again"),
    N_("{action} needs a dealer PIN"),
    # who is dealing (controller/round/shift.py)
    N_("no dealer is signed in: the dealer signs in with their PIN first (Dealer sign in)"),
    N_("no dealer is signed in"), N_("this table's dealers do not sign in (page.dealer_sign_in = false)"),
    N_("a dealer signs in with their own dealer PIN"),
    N_("the dealer changes between rounds: finish round {round} first (it is {state})"),
    N_("the dealer changes between rounds, not while {state}"),
    N_("the dealer on duty signs out with their own PIN, or a supervisor with theirs"),
    N_("signing the dealer out needs the dealer's own PIN or a supervisor's"),
    N_("Dealer {name} signed out: their PIN was removed. Betting opens once a dealer signs in"),
    N_("The table has stopped: {why}"), N_("{action}: internal error: {reason}"), N_("{action}: not handled"),
    N_("the journal cannot be written ({reason}). Nothing more is recorded or paid; call a technician"),
    N_("the audit trail cannot be written ({reason}). Nothing more is recorded or paid; call a technician"),
    N_("an internal error ({reason}). Nothing more is recorded or paid; call a technician"),
    # a halt in words of its own (a table found behind the floor as it plays: controller/floor/head.py)
    N_("{why}. Nothing more is recorded or paid; call a technician"),
    N_("{why} (found {at}; a technician clears it with `table-controller behind clear`, then restarts the "
       "table). Nothing more is recorded or paid; call a technician"),
    # the page's own (controller/page/server.py) and the PIN store's (controller/store/pins.py)
    N_("address {address} may not use this table's page (page.allow in the table configuration)"),
    N_("the request body must be a JSON object"),
    N_("the request body is nested too deeply to be a request"), N_("unknown field {what}"),
    N_("say which action (\"action\": \"open_betting\", ...)"),
    N_("{action} needs the {role}'s PIN"), N_("role must be one of {roles}, or none for the dealer"),
    N_("a {role} PIN has at least {count} digits; this one was not tried and does not count as a wrong PIN"),
    N_("a {role} PIN is {count} to {most} digits; this one was not tried and does not count as a wrong PIN"),
    N_("{action} is a dealer's action; it takes no role, PIN or challenge"),
    N_("recall is not available: this page was started without the journal"),
    N_("recall: cannot read the journal: {reason}"),
    N_("PIN entry is locked for every role after {count} wrong PINs in a row; try again in {duration}"),
    N_("no {role} PIN is set on this table (a technician sets one with `table-controller pin set {role2} NAME`)"),
    N_("wrong {role} PIN; PIN entry locked for every role for {duration} after {count} wrong PINs in a row"),
    N_("wrong {role} PIN (PIN entry locks for every role after {count} more wrong PIN)"),
    N_("wrong {role} PIN (PIN entry locks for every role after {count} more wrong PINs)"),
    N_("role {what} unknown (roles: {roles})"),
    N_("a supervisor's action needs a challenge: the page asks GET /api/challenge for one first"),
    N_("this challenge was already used: a request is never taken twice (ask for a new one)"),
    N_("this challenge is unknown or was pushed out by newer ones (ask for a new one)"),
    N_("this challenge expired (ask for a new one)"),
    N_("cards are shown once the dealer's hand is revealed; folded hands once the round is over"),
    N_("folded hands are shown once the round is over"),
)

# --- the linked jackpot (controller/round/floor_desk.py): prompts, alerts, refusals, floor states ---
LINKED = (
    N_("JACKPOT PENDING: {jackpot} at position {position}, {status}; paid once the floor's split is final"),
    N_("waiting for the floor"), N_("final"), N_("claimed; the split is not final yet"),
    N_("refused by the floor: {reason}"),
    N_("JACKPOT PENDING: {jackpot} won {where}. Super 6 is closed until its new value is posted on the floor "
       "and shown"),
    N_("at a table of the group"), N_("at this table (position {position})"),
    N_("Jackpot values taken from the {by}, {reason}: {changes} (generations {generations})"),
    N_("floor ({name})"), N_("the values already shown"),
    N_("{jackpot} hit at position {position} in a round opened before the floor's values were taken: call the "
       "floor's administrator"),
    N_("The floor refused the {jackpot} claim of position {position}: {reason}. Nothing is paid; call the "
       "floor's administrator (the claim is sent again until it stands)"),
    N_("The floor refused the {jackpot} claim of position {position}: {reason}. Nothing is paid; a supervisor may "
       "settle the round without the linked award, which the floor then holds as owed to the player"),
    N_("the floor's refusal of the {jackpot} claim can be mended by the floor's administrator: the claim is sent "
       "again until it stands; call the administrator"),
    N_("its answer cannot be paid ({why})"),
    N_("it answers generation {given}, the round was dealt under generation {expected}"),
    N_("its amount {given} is not from $0.01 to the {amount} the hit wins alone"),
    N_("{jackpot} claim of position {position} referred to the floor by the {by}: Super 6 wager returned, the rest "
       "paid as settled"),
    N_("no linked jackpot claim of this round was refused by the floor"),
    N_("{jackpot} claimed on the floor ({split}): position {position}'s part {amount}"),
    N_("{jackpot} claimed on the floor ({split}): position {position}'s part {amount}; not final until every "
       "table of the group took the lock"),
    N_("alone"), N_("{count} winners, claim {order}"),
    N_("The shoe has not reported its count within {seconds} s; asking again"),
    N_("Super 6: the floor states the amount"),
    N_("position {position}'s Super 6 jackpot waits for the floor's final amount; settle position {other} first"),
    N_("position {position}'s Super 6 jackpot waits for the floor's final amount; it is paid once every table "
       "of the group took the lock"),
    N_("this table's jackpot is linked (group {group}): its values are posted on the floor by a supervisor (the "
       "pit's page), and the table takes them between rounds"),
    N_("JACKPOT PENDING: {jackpots} won on the floor; Super 6 reopens when the new value is posted and shown"),
    N_("the floor's jackpot values are taken between rounds; Super 6 reopens once they are shown"),
)

# a round's replay (controller/store/replay.py, the recall's step-by-step view) and its refusals
REPLAY = (
    N_("Round opened: {preset}, deck {deck}"), N_("Round opened: {preset}, deck {deck}, dealt by {dealer}"),
    N_("Dealer {name} signed in"), N_("Dealer {name} signed in, relieving {other}"), N_("Dealer {name} signed out"),
    N_("The table: {state}"), N_("The table: {state} (held from {held})"),
    N_("Shuffle asked for"), N_("Shuffled, {count} cards"), N_("Deck checked: complete"),
    N_("Deck checked: NOT complete"), N_("{by} read position {position}'s {spot} as {amount}: {reason}"),
    N_("No more bets: the wagers on the felt are accepted"), N_("Position {position} {spot}: {amount} on the spot"),
    N_("Position {position} {spot}: chips seen, the amount not read"),
    N_("Position {position} {spot}: chips taken away"),
    N_("Hand {hand} to the dealer: {cards}"), N_("Hand {hand}, a dead hand: {cards}"),
    N_("Hand {hand} to position {position}: {cards}"), N_("Position {position} plays (by the {by})"),
    N_("Position {position} folds (by the {by})"), N_("Dealer's hand revealed: {cards}, {hand_name}"),
    N_("Dealer's hand revealed: {cards}, {hand_name}, does not qualify"),
    N_("Position {position} settled: net {amount} (collected with the folds), by {by}"),
    N_("Position {position} settled: net {amount}, by {by}"), N_("Alert: {message}"),
    N_("Round void: {reason} (by {by})"), N_("Round complete"), N_("Jackpot hit verified by {by}: {reason}"),
    N_("say which round to replay: a round number"), N_("no round {round} in the journal"),
    N_("Round {round} is still in play: its replay opens when it ends"),
)

TEMPLATES: tuple[str, ...] = (NAMES + PROMPTS + HANDS + FLAGS + ALERTS + REFUSALS + LINKED + REPLAY
                              + tuple(API_ERRORS.values()))
