package zoo

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The `news` app's catalog: Meridian News's articles, the Sport desk's matches and teams, and the topics a
// reader can follow. Every name is fictional, so an answer comes from the page, not from a model's memory.
// Families draw from it through the news.* domains registered at the end of this file.

// newsFact is one sentence of an article that a question can ask about: Before + Value + After is a paragraph
// of the article's body, exactly as the page shows it (plain text, no markup inside the paragraph); Ask is the
// question's wording ("how many jobs will the plant create").
type newsFact struct {
	Key, Ask, Before, Value, After string
}

// Sentence is the paragraph the fact appears in.
func (f newsFact) Sentence() string { return f.Before + f.Value + f.After }

// newsArticle is one story: id and slug make its path (article/{id}/{slug}); Section is a newsSections key,
// Topic a newsTopics slug; Date is as the dateline shows it.
type newsArticle struct {
	ID                                 int
	Slug, Section, Topic               string
	Headline, Standfirst               string
	Author, AuthorRole, Date, Datetime string
	Lead                               string // the first paragraph
	Facts                              []newsFact
	Close                              string // the last paragraph
}

// Path is the article's app-relative path.
func (a *newsArticle) Path() string { return fmt.Sprintf("article/%d/%s", a.ID, a.Slug) }

// Byline is the byline paragraph: "By Priya Raman, Business reporter".
func (a *newsArticle) Byline() string { return "By " + a.Author + ", " + a.AuthorRole }

// newsSection is a section of the site: its path segment and its name in the navigation.
type newsSection struct{ Slug, Name string }

var newsSections = []newsSection{
	{"world", "World"}, {"business", "Business"}, {"technology", "Technology"}, {"science", "Science"},
	{"culture", "Culture"}, {"sport", "Sport"},
}

func newsSectionName(slug string) string {
	for _, s := range newsSections {
		if s.Slug == slug {
			return s.Name
		}
	}
	return ""
}

// newsTopic is a topic or team a reader can follow on the Following page: Kind "topic" or "team"; Follow and
// Alerts are the settings a new reader starts with.
type newsTopic struct {
	Slug, Name, Kind string
	Follow, Alerts   bool
}

var newsTopics = []newsTopic{
	{"climate", "Climate", "topic", false, false},
	{"technology", "Technology", "topic", true, true},
	{"business", "Business", "topic", false, false},
	{"science", "Science", "topic", true, false},
	{"health", "Health", "topic", false, false},
	{"culture", "Culture", "topic", false, true},
	{"travel", "Travel", "topic", false, false},
	{"elections", "Elections", "topic", true, false},
	{"ashford-rovers", "Ashford Rovers", "team", false, false},
	{"kingsbridge-city", "Kingsbridge City", "team", false, false},
	{"marlow-athletic", "Marlow Athletic", "team", false, false},
	{"harwich-town", "Harwich Town", "team", false, false},
	{"deepdale-united", "Deepdale United", "team", false, false},
	{"stourton-albion", "Stourton Albion", "team", false, false},
	{"wexley-wanderers", "Wexley Wanderers", "team", false, false},
	{"calder-vale", "Calder Vale", "team", false, false},
}

func newsTopicBySlug(slug string) *newsTopic {
	for i := range newsTopics {
		if newsTopics[i].Slug == slug {
			return &newsTopics[i]
		}
	}
	return nil
}

func newsTeamName(slug string) string {
	if t := newsTopicBySlug(slug); t != nil {
		return t.Name
	}
	return slug
}

// newsGoal is one goal of a match: the scorer, the team slug and the minute.
type newsGoal struct {
	Player, Team string
	Minute       int
}

// newsMatch is one fixture of the scoreboard: teams by slug, the score, and the facts the match page's table
// shows.
type newsMatch struct {
	ID                       int
	Competition, Date, Round string
	Home, Away               string
	HomeGoals, AwayGoals     int
	Venue, Referee           string
	Attendance               int
	Goals                    []newsGoal
}

// Label is the accessible name of the match's links on the scoreboard and in the ticker:
// "Ashford Rovers 2, Kingsbridge City 1, Full time".
func (m *newsMatch) Label() string {
	return fmt.Sprintf("%s %d, %s %d, Full time", newsTeamName(m.Home), m.HomeGoals, newsTeamName(m.Away),
		m.AwayGoals)
}

// Facts are the rows of the match page's "Match facts" table, in order: label and value as shown.
func (m *newsMatch) Facts() [][2]string {
	rows := [][2]string{{"Competition", m.Competition + ", " + m.Round}, {"Venue", m.Venue},
		{"Attendance", commaInt(m.Attendance)}, {"Referee", m.Referee}}
	if len(m.Goals) > 0 {
		g := m.Goals[0]
		rows = append(rows, [2]string{"First goal", fmt.Sprintf("%s (%s) %d'", g.Player, newsTeamName(g.Team), g.Minute)})
	}
	return rows
}

// Path is the match page's app-relative path.
func (m *newsMatch) Path() string { return fmt.Sprintf("sport/match/%d", m.ID) }

var newsMatches = []newsMatch{
	{4101, "Premier Division", "Saturday 28 November 2026", "Matchday 14", "ashford-rovers", "kingsbridge-city", 2, 1,
		"Rivermead Park", "Helen Okoro", 31_482,
		[]newsGoal{{"Tomas Reyes", "ashford-rovers", 23}, {"Callum Price", "kingsbridge-city", 51}, {"Tomas Reyes", "ashford-rovers", 78}}},
	{4102, "Premier Division", "Saturday 28 November 2026", "Matchday 14", "marlow-athletic", "harwich-town", 0, 0,
		"The Old Quay", "Martin Sowerby", 18_905, nil},
	{4103, "Premier Division", "Saturday 28 November 2026", "Matchday 14", "deepdale-united", "stourton-albion", 3, 2,
		"Deepdale Road", "Aisha Bello", 27_336,
		[]newsGoal{{"Jonah Whitfield", "stourton-albion", 9}, {"Luca Ferri", "deepdale-united", 34}, {"Luca Ferri", "deepdale-united", 60},
			{"Sam Adeyemi", "stourton-albion", 71}, {"Ollie Grant", "deepdale-united", 88}}},
	{4104, "Premier Division", "Sunday 29 November 2026", "Matchday 14", "wexley-wanderers", "calder-vale", 1, 3,
		"Wexley Common", "Graham Pike", 22_917,
		[]newsGoal{{"Ryan Moss", "calder-vale", 12}, {"Dean Hollis", "wexley-wanderers", 40}, {"Ryan Moss", "calder-vale", 66},
			{"Kofi Mensah", "calder-vale", 90}}},
	{4105, "League Cup", "Tuesday 1 December 2026", "Quarter-final", "kingsbridge-city", "marlow-athletic", 1, 0,
		"Kingsbridge Stadium", "Helen Okoro", 40_126, []newsGoal{{"Callum Price", "kingsbridge-city", 57}}},
	{4106, "League Cup", "Tuesday 1 December 2026", "Quarter-final", "harwich-town", "ashford-rovers", 2, 2,
		"Bayside Ground", "Peter Lund", 12_788,
		[]newsGoal{{"Eddie Shaw", "harwich-town", 5}, {"Tomas Reyes", "ashford-rovers", 44}, {"Niall Brennan", "ashford-rovers", 62},
			{"Eddie Shaw", "harwich-town", 83}}},
	{4107, "League Cup", "Wednesday 2 December 2026", "Quarter-final", "stourton-albion", "wexley-wanderers", 4, 1,
		"Albion Lane", "Aisha Bello", 15_240,
		[]newsGoal{{"Sam Adeyemi", "stourton-albion", 18}, {"Jonah Whitfield", "stourton-albion", 29}, {"Dean Hollis", "wexley-wanderers", 47},
			{"Sam Adeyemi", "stourton-albion", 64}, {"Billy Carr", "stourton-albion", 81}}},
	{4108, "League Cup", "Wednesday 2 December 2026", "Quarter-final", "calder-vale", "deepdale-united", 0, 1,
		"Vale Park Road", "Martin Sowerby", 19_653, []newsGoal{{"Ollie Grant", "deepdale-united", 73}}},
	{4109, "Premier Division", "Saturday 5 December 2026", "Matchday 15", "kingsbridge-city", "deepdale-united", 2, 2,
		"Kingsbridge Stadium", "Graham Pike", 41_877,
		[]newsGoal{{"Luca Ferri", "deepdale-united", 15}, {"Callum Price", "kingsbridge-city", 38}, {"Marcus Lowe", "kingsbridge-city", 55},
			{"Ollie Grant", "deepdale-united", 86}}},
	{4110, "Premier Division", "Saturday 5 December 2026", "Matchday 15", "calder-vale", "ashford-rovers", 1, 2,
		"Vale Park Road", "Peter Lund", 20_114,
		[]newsGoal{{"Kofi Mensah", "calder-vale", 27}, {"Niall Brennan", "ashford-rovers", 49}, {"Tomas Reyes", "ashford-rovers", 90}}},
}

func newsMatchByID(id int) *newsMatch {
	for i := range newsMatches {
		if newsMatches[i].ID == id {
			return &newsMatches[i]
		}
	}
	return nil
}

var newsArticles = []newsArticle{
	{10231, "northvale-plant-electric-vans", "business", "business",
		"Northvale car plant to build electric vans from 2028",
		"The factory's owner says the switch secures its future after two years of falling orders.",
		"Priya Raman", "Business reporter", "3 December 2026", "2026-12-03",
		"Halvorsen Motors has confirmed that its Northvale plant will stop making diesel vans and build electric models instead.",
		[]newsFact{
			{"jobs", "how many new jobs will the investment create", "The investment will create ", "2,400", " new jobs at the site, the company said."},
			{"investment", "how much is Halvorsen Motors investing in the plant", "Halvorsen Motors is investing ", "£850m", " in the plant over five years."},
			{"first-vans", "when are the first electric vans due", "The first electric vans are due to leave the production line in ", "March 2028", "."},
		},
		"Unions welcomed the decision but said workers needed guarantees about retraining."},
	{10232, "high-street-footfall-rises", "business", "business",
		"High street footfall rises for third month in a row",
		"Retailers say shoppers are returning to town centres ahead of the festive season.",
		"Daniel Osei", "Economics correspondent", "1 December 2026", "2026-12-01",
		"The number of people visiting high streets rose again in November, according to the Retail Footfall Index.",
		[]newsFact{
			{"rise", "by how much did footfall rise in November", "Footfall was up ", "4.2%", " compared with the same month last year."},
			{"vacancy", "what was the shop vacancy rate", "The national shop vacancy rate fell to ", "13.8%", ", its lowest level since 2019."},
			{"towns", "how many towns did the index survey", "The index is based on sensor data from ", "612", " towns and cities."},
		},
		"Analysts cautioned that a wet December could reverse some of the gains."},
	{10240, "lumen-chip-battery-life", "technology", "technology",
		"New Lumen chip promises two-day phone battery life",
		"The chipmaker says its latest design uses far less power when the screen is off.",
		"Sofia Marsh", "Technology reporter", "2 December 2026", "2026-12-02",
		"Lumen Semiconductors has unveiled the L9 processor, which it says will appear in phones from next spring.",
		[]newsFact{
			{"saving", "how much less power does the L9 use", "The company claims the L9 uses ", "38%", " less power than its predecessor."},
			{"transistors", "how many transistors does the L9 have", "The chip packs ", "19 billion", " transistors onto a single die."},
			{"factory", "where will the chip be made", "It will be manufactured at the firm's new plant in ", "Eindhoven", "."},
		},
		"Independent testers said they would wait for retail devices before judging the claims."},
	{10241, "city-bans-facial-recognition", "technology", "technology",
		"Harborough council votes to ban facial recognition cameras",
		"Councillors backed the ban after a six-month public consultation.",
		"Sofia Marsh", "Technology reporter", "30 November 2026", "2026-11-30",
		"Harborough has become the first council in the region to ban live facial recognition in public spaces.",
		[]newsFact{
			{"votes", "how many councillors voted for the ban", "The motion was passed by ", "41", " votes to 9."},
			{"responses", "how many responses did the consultation receive", "The public consultation received ", "7,350", " responses."},
			{"cameras", "how many cameras will be switched off", "A total of ", "26", " cameras will be switched off by the end of January."},
		},
		"Police said they would review how the decision affects ongoing investigations."},
	{10250, "glacier-retreat-record", "science", "climate",
		"Alpine glacier retreats by record distance in a single year",
		"Scientists say this summer's heatwave accelerated the loss of ice.",
		"Emma Lindqvist", "Climate editor", "29 November 2026", "2026-11-29",
		"The Morteratsch-Weiss glacier lost more ice this year than in any year since measurements began.",
		[]newsFact{
			{"retreat", "how far did the glacier retreat this year", "The glacier's front retreated by ", "212 metres", " over the past twelve months."},
			{"since", "since which year has the glacier been measured", "Measurements at the glacier began in ", "1881", "."},
			{"volume", "how much of its volume has the glacier lost since 2000", "Researchers estimate the glacier has lost ", "31%", " of its volume since 2000."},
		},
		"The team plans to install new sensors on the ice next summer."},
	{10251, "comet-visible-december", "science", "science",
		"Comet Halvard-Iyer to be visible to the naked eye in December",
		"Astronomers say the best views will come in the week before Christmas.",
		"Rohan Iyer", "Science correspondent", "27 November 2026", "2026-11-27",
		"A comet discovered only in March is expected to become bright enough to see without a telescope.",
		[]newsFact{
			{"closest", "on what date will the comet be closest to Earth", "The comet will make its closest approach to Earth on ", "19 December", "."},
			{"distance", "how close to Earth will the comet pass", "At that point it will be ", "71 million kilometres", " from Earth."},
			{"orbit", "how long is the comet's orbit", "Its orbit around the Sun takes about ", "6,800 years", "."},
		},
		"Observers are advised to look low in the north-eastern sky after dusk."},
	{10252, "vaccine-trial-malaria", "science", "health",
		"Malaria vaccine trial reports strong protection in children",
		"Researchers say the results could lead to approval within two years.",
		"Grace Mwangi", "Health correspondent", "26 November 2026", "2026-11-26",
		"A late-stage trial of the R42 malaria vaccine has reported its first full year of results.",
		[]newsFact{
			{"efficacy", "how effective was the vaccine in the trial", "The vaccine was ", "77%", " effective at preventing severe illness."},
			{"children", "how many children took part in the trial", "The trial enrolled ", "4,860", " children in three countries."},
			{"doses", "how many doses does the vaccine need", "The vaccine is given in ", "three", " doses a month apart."},
		},
		"Health officials said manufacturing capacity would be the next hurdle."},
	{10260, "coastal-rail-line-reopens", "world", "travel",
		"Coastal rail line reopens after landslide repairs",
		"Passengers can travel the full length of the route for the first time since February.",
		"Ines Duarte", "Transport correspondent", "2 December 2026", "2026-12-02",
		"Trains are running again along the coastal line between Porthallow and Kerris after a landslide closed it in February.",
		[]newsFact{
			{"cost", "how much did the repairs cost", "The repairs cost ", "£64m", ", the rail operator said."},
			{"length", "how long a stretch of track was rebuilt", "Engineers rebuilt a ", "1.3-mile", " stretch of track along the cliffs."},
			{"journey", "how long does the full journey now take", "The full journey now takes ", "52 minutes", ", four minutes faster than before."},
		},
		"Local businesses said the closure had cost them much of the summer season."},
	{10261, "election-turnout-record", "world", "elections",
		"Record turnout in Valdoria's parliamentary election",
		"Voters queued into the night at some polling stations.",
		"Marco Bellini", "Europe correspondent", "30 November 2026", "2026-11-30",
		"Valdoria's election commission has published the final turnout figures for Sunday's vote.",
		[]newsFact{
			{"turnout", "what was the turnout", "Turnout reached ", "81.4%", ", the highest since the country's first free election."},
			{"seats", "how many seats did the Civic Alliance win", "The Civic Alliance won ", "87", " of the 200 seats in parliament."},
			{"stations", "how many polling stations stayed open late", "Officials kept ", "340", " polling stations open past the official closing time."},
		},
		"Coalition talks are expected to begin next week."},
	{10270, "museum-returns-manuscripts", "culture", "culture",
		"Museum returns medieval manuscripts to monastery",
		"The handover ends a dispute that lasted more than forty years.",
		"Hannah Clarke", "Arts correspondent", "28 November 2026", "2026-11-28",
		"The National Museum of Antiquities has handed back a collection of illuminated manuscripts to the monastery of San Telmo.",
		[]newsFact{
			{"count", "how many manuscripts were returned", "The museum returned ", "14", " manuscripts in total."},
			{"oldest", "from which century does the oldest manuscript date", "The oldest of them dates from the ", "11th century", "."},
			{"display", "when will the manuscripts go on display", "The monastery plans to put them on public display in ", "May 2027", "."},
		},
		"The museum said it would lend the monastery conservators to help with the display."},
	{10271, "festival-lineup-announced", "culture", "culture",
		"Eastbrook festival announces its largest ever line-up",
		"Organisers say ticket sales have already broken records.",
		"Hannah Clarke", "Arts correspondent", "25 November 2026", "2026-11-25",
		"The Eastbrook arts festival has announced the acts for its twentieth anniversary edition next summer.",
		[]newsFact{
			{"acts", "how many acts are on the line-up", "This year's line-up features ", "312", " acts across nine stages."},
			{"tickets", "how many tickets have been sold", "Organisers said ", "58,000", " tickets had already been sold."},
			{"dates", "when does the festival take place", "The festival runs from ", "10 to 13 July", " next year."},
		},
		"A limited number of day tickets will go on sale in the spring."},
	{10280, "reyes-double-sinks-kingsbridge", "sport", "ashford-rovers",
		"Reyes double sinks Kingsbridge as Rovers go top",
		"Ashford Rovers moved to the top of the Premier Division with a late winner.",
		"Joe Hartley", "Chief football writer", "28 November 2026", "2026-11-28",
		"Tomas Reyes scored twice as Ashford Rovers beat Kingsbridge City at Rivermead Park.",
		[]newsFact{
			{"points", "how many points do Rovers have", "The win lifts Rovers to ", "32 points", " from 14 games."},
			{"unbeaten", "how many home games have Rovers gone unbeaten", "Rovers are now unbeaten in ", "19", " home games."},
			{"season-goals", "how many goals has Reyes scored this season", "Reyes has now scored ", "13", " goals this season."},
		},
		"Kingsbridge host Deepdale United next Saturday."},
}

func newsArticleByID(id int) *newsArticle {
	for i := range newsArticles {
		if newsArticles[i].ID == id {
			return &newsArticles[i]
		}
	}
	return nil
}

// newsMostRead is the home page's "Most read" list, by article id, in rank order.
var newsMostRead = []int{10261, 10240, 10250, 10231, 10252, 10280, 10251, 10260, 10241, 10271}

// searchNews returns the articles whose headline, standfirst, section, topic or author contain every word of q
// (matchesAllWords), newest first (catalog order within a day).
func searchNews(q string) []*newsArticle {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return nil
	}
	var out []*newsArticle
	for i := range newsArticles {
		a := &newsArticles[i]
		hay := strings.ToLower(strings.Join([]string{a.Headline, a.Standfirst, newsSectionName(a.Section), a.Topic,
			a.Author, a.Lead}, " "))
		if matchesAllWords(hay, words) {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Datetime > out[j].Datetime })
	return out
}

// newsSearchQuery is the query the search families type for an article: the first three words of its
// headline, lower-cased (TestNewsCatalog checks that each finds its article; other stories may be listed too,
// and the solution clicks the headline).
func newsSearchQuery(a *newsArticle) string {
	words := strings.Fields(a.Headline)
	if len(words) > 3 {
		words = words[:3]
	}
	return strings.ToLower(strings.Join(words, " "))
}

func init() {
	for name, mk := range map[string]func() []map[string]any{
		"news.facts":       newsFactDomain,
		"news.articles":    newsArticleDomain,
		"news.matches":     newsMatchDomain,
		"news.match_facts": newsMatchFactDomain,
		"news.match_teams": newsMatchTeamDomain,
		"news.topics":      newsTopicDomain,
	} {
		catalogDomains[name] = mk
	}
}

func newsArticleRecord(a *newsArticle) map[string]any {
	return map[string]any{"key": fmt.Sprint(a.ID), "id": a.ID, "headline": a.Headline, "section": a.Section,
		"section_name": newsSectionName(a.Section), "author": a.Author, "role": a.AuthorRole, "date": a.Date,
		"query": newsSearchQuery(a), "byline": a.Byline(), "most_read": slices.Contains(newsMostRead, a.ID)}
}

// newsArticleDomain: one record per article: id, headline, section (slug), section_name, author, role
// (the author's title), date, query (a search that finds it), byline, most_read (listed in the home page's
// "Most read").
func newsArticleDomain() []map[string]any {
	var out []map[string]any
	for i := range newsArticles {
		out = append(out, newsArticleRecord(&newsArticles[i]))
	}
	return out
}

// newsFactDomain: one record per fact sentence of an article: the article's fields plus fact (key), ask,
// before, value, after.
func newsFactDomain() []map[string]any {
	var out []map[string]any
	for i := range newsArticles {
		a := &newsArticles[i]
		for _, f := range a.Facts {
			r := newsArticleRecord(a)
			r["key"] = fmt.Sprintf("%d/%s", a.ID, f.Key)
			r["fact"], r["ask"], r["before"], r["value"], r["after"] = f.Key, f.Ask, f.Before, f.Value, f.After
			out = append(out, r)
		}
	}
	return out
}

func newsMatchRecord(m *newsMatch) map[string]any {
	return map[string]any{"key": fmt.Sprint(m.ID), "id": m.ID, "home": newsTeamName(m.Home),
		"away": newsTeamName(m.Away), "home_goals": m.HomeGoals, "away_goals": m.AwayGoals, "label": m.Label(),
		"competition": m.Competition, "date": m.Date, "round": m.Round}
}

// newsMatchDomain: one record per match: id, home, away (team names), home_goals, away_goals, label (the
// links' accessible name), competition, date, round.
func newsMatchDomain() []map[string]any {
	var out []map[string]any
	for i := range newsMatches {
		out = append(out, newsMatchRecord(&newsMatches[i]))
	}
	return out
}

// newsMatchFactDomain: one record per row of a match page's "Match facts" table: the match's fields plus
// label, value and fact (the label's slug).
func newsMatchFactDomain() []map[string]any {
	var out []map[string]any
	for i := range newsMatches {
		m := &newsMatches[i]
		for _, f := range m.Facts() {
			r := newsMatchRecord(m)
			r["key"] = fmt.Sprintf("%d/%s", m.ID, staysSlug(f[0]))
			r["label"], r["value"], r["fact"] = f[0], f[1], staysSlug(f[0])
			out = append(out, r)
		}
	}
	return out
}

// newsMatchTeamDomain: one record per team of a match (home and away): the match's fields plus team (name),
// team_slug and side.
func newsMatchTeamDomain() []map[string]any {
	var out []map[string]any
	for i := range newsMatches {
		m := &newsMatches[i]
		for _, side := range []string{"home", "away"} {
			slug := m.Home
			if side == "away" {
				slug = m.Away
			}
			r := newsMatchRecord(m)
			r["key"] = fmt.Sprintf("%d/%s", m.ID, slug)
			r["team"], r["team_slug"], r["side"] = newsTeamName(slug), slug, side
			out = append(out, r)
		}
	}
	return out
}

// newsTopicDomain: one record per topic or team of the Following page: slug, name, kind ("topic" or
// "team"), follow and alerts (a new reader's settings), and group (the fieldset's name on the page, the
// topic's name).
func newsTopicDomain() []map[string]any {
	var out []map[string]any
	for _, t := range newsTopics {
		out = append(out, map[string]any{"key": t.Slug, "slug": t.Slug, "name": t.Name, "kind": t.Kind,
			"follow": t.Follow, "alerts": t.Alerts})
	}
	return out
}
