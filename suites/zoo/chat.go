package zoo

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The `chat` app: a Mattermost-like team chat ("Huddle", team "Northwind"). It is CLIENT-RENDERED: every page
// path serves the same HTML shell (a loading screen: a generic wrapper around the logo image, no interactive
// element), and static/chat.js renders the login form, the channel sidebar, the message list and the composer,
// talking to a JSON API on the app. Pages (app-relative; all serve the shell, the script routes with
// history.pushState, like Mattermost's single-page client):
//
//	/                           → client-side redirect to /login, or to /channels/town-square when logged in
//	/login                      login form: "Email or Username", "Password", "Log in"
//	/channels/{name}            a channel: sidebar links, messages, composer "Write to <Channel>" + "Send"
//
// JSON API (app-relative, session by the MMAUTHTOKEN cookie scoped to the tenant prefix):
//
//	POST /api/v4/users/login    {"login_id", "password"} → 200 user | 401 {"message"}
//	POST /api/v4/users/logout   → 200
//	GET  /api/v4/users/me       → 200 user | 401
//	GET  /api/v4/channels       → 200 [channel] | 401
//	GET  /api/v4/channels/{name}/posts → 200 [post] (history + this tenant's posts) | 401 | 404
//	POST /api/v4/posts          {"channel", "message"} → 201 post | 400 | 401 | 404
//
// Mutation late_hydration: the script renders the app lateHydration's delay after the page's load event
// (hydration.go: hydrationDelay); until then the page is the shell alone (`generic > img "Huddle"` in an AI snapshot).
// Without the mutation it renders at once. Only a full page load shows the shell; in-app navigation does not.

//go:embed assets/chat
var chatFS embed.FS

var chatTpl = ParseTemplates(chatFS, "assets/chat", nil)

// chatUser is a seeded account.
type chatUser struct {
	Username string `json:"username"`
	Email    string `json:"email"`
	First    string `json:"first_name"`
	Last     string `json:"last_name"`
	password string
}

// chatChannel is a public channel of the team.
type chatChannel struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Purpose     string `json:"purpose"`
}

// chatPost is one message as the API returns it. Time is a display label ("9:14 AM"); posts made in the
// tenant show "Just now" (no clocks: the Zoo is deterministic).
type chatPost struct {
	ID      string `json:"id"`
	Channel string `json:"channel"`
	Author  string `json:"author"`
	Display string `json:"author_display"`
	Text    string `json:"message"`
	Time    string `json:"time"`
	Seeded  bool   `json:"seeded,omitempty"`
}

var chatUsers = []chatUser{
	{"dana.kim", "dana.kim@northwind.test", "Dana", "Kim", "Harbor-42"},
	{"luis.ortega", "luis.ortega@northwind.test", "Luis", "Ortega", "Maple-17"},
	{"priya.nair", "priya.nair@northwind.test", "Priya", "Nair", "Comet-88"},
	{"sam.okafor", "sam.okafor@northwind.test", "Sam", "Okafor", "Birch-23"},
	{"mei.chen", "mei.chen@northwind.test", "Mei", "Chen", "Lantern-05"},
}

var chatChannels = []chatChannel{
	{"town-square", "Town Square", "Company-wide announcements and chatter"},
	{"off-topic", "Off-Topic", "Lunch plans, pets and everything else"},
	{"release-planning", "Release Planning", "Coordinating the 7.x release train"},
	{"design-reviews", "Design Reviews", "Mockups, critiques and design decisions"},
	{"support-escalations", "Support Escalations", "Customer issues that need engineering eyes"},
}

// chatHistory is the seeded conversation shown in every tenant (not part of the state).
var chatHistory = []chatPost{
	{Channel: "town-square", Author: "mei.chen", Time: "8:02 AM", Text: "Good morning everyone! The office coffee machine is fixed."},
	{Channel: "town-square", Author: "luis.ortega", Time: "8:17 AM", Text: "Reminder: all-hands is on Thursday at 4 PM in the big room."},
	{Channel: "town-square", Author: "priya.nair", Time: "9:05 AM", Text: "Welcome to our two new support engineers, say hi in Support Escalations."},
	{Channel: "off-topic", Author: "sam.okafor", Time: "11:40 AM", Text: "Anyone up for tacos at noon?"},
	{Channel: "off-topic", Author: "mei.chen", Time: "11:42 AM", Text: "Count me in. The new place on 5th?"},
	{Channel: "release-planning", Author: "dana.kim", Time: "9:14 AM", Text: "Code freeze for 7.4 is Friday. Please land your fixes before then."},
	{Channel: "release-planning", Author: "luis.ortega", Time: "9:31 AM", Text: "The payments migration is merged; QA can start on staging."},
	{Channel: "release-planning", Author: "priya.nair", Time: "10:02 AM", Text: "Release notes draft is in the shared folder, comments welcome."},
	{Channel: "design-reviews", Author: "mei.chen", Time: "1:15 PM", Text: "New checkout mockups are up for review, feedback by Wednesday please."},
	{Channel: "design-reviews", Author: "dana.kim", Time: "1:48 PM", Text: "Looks great. Can we make the coupon field less prominent?"},
	{Channel: "support-escalations", Author: "sam.okafor", Time: "2:05 PM", Text: "Ticket 4471: a customer cannot reset their password from the mobile app."},
	{Channel: "support-escalations", Author: "luis.ortega", Time: "2:20 PM", Text: "Looking into 4471 now, probably the deep link config."},
}

func init() {
	for i := range chatHistory {
		chatHistory[i].ID = "h" + strconv.Itoa(i+1)
		chatHistory[i].Seeded = true
		if u := chatUserByLogin(chatHistory[i].Author); u != nil {
			chatHistory[i].Display = u.First + " " + u.Last
		}
	}
	RegisterApp(chatApp{})
}

// chatUserByLogin finds a user by username or email, case-insensitively (Mattermost's login_id).
func chatUserByLogin(id string) *chatUser {
	id = strings.ToLower(strings.TrimSpace(id))
	for i := range chatUsers {
		if chatUsers[i].Username == id || strings.ToLower(chatUsers[i].Email) == id {
			return &chatUsers[i]
		}
	}
	return nil
}

func chatChannelByName(name string) *chatChannel {
	for i := range chatChannels {
		if chatChannels[i].Name == name {
			return &chatChannels[i]
		}
	}
	return nil
}

type chatApp struct{}

// Name implements App.
func (chatApp) Name() string { return "chat" }

// Mutations implements App: the chat app implements late_hydration.
func (chatApp) Mutations() []string { return []string{"late_hydration"} }

// New implements App.
func (chatApp) New(env *AppEnv) (Instance, error) {
	c := &chatInstance{env: env, sessions: map[string]string{}, Messages: []ChatMessage{}, Logins: []ChatLogin{}}
	c.mux = http.NewServeMux()
	for _, p := range []string{"GET /{$}", "GET /login", "GET /channels/{name}"} {
		c.mux.HandleFunc(p, c.shell)
	}
	c.mux.HandleFunc("POST /api/v4/users/login", c.apiLogin)
	c.mux.HandleFunc("POST /api/v4/users/logout", c.apiLogout)
	c.mux.HandleFunc("GET /api/v4/users/me", c.apiMe)
	c.mux.HandleFunc("GET /api/v4/channels", c.apiChannels)
	c.mux.HandleFunc("GET /api/v4/channels/{name}/posts", c.apiPosts)
	c.mux.HandleFunc("POST /api/v4/posts", c.apiCreatePost)
	c.mux.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, chatFS, "assets/chat/static", r.PathValue("file"))
	})
	c.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Unknown API endpoint."})
	})
	c.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		RenderPage(w, chatTpl, "notfound.html", http.StatusNotFound, chatShellData{Base: env.Base})
	})
	return c, nil
}

// ChatMessage is one message posted in the tenant (the state; the seeded history is not in it). Channel is
// the channel's URL name ("release-planning"), Author the poster's username, Text the message as posted
// (trimmed of surrounding whitespace).
type ChatMessage struct {
	Channel string `json:"channel"`
	Author  string `json:"author"`
	Text    string `json:"text"`
}

// ChatLogin is one successful login (by username, whichever login id was typed).
type ChatLogin struct {
	Username string `json:"username"`
}

type chatInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu           sync.Mutex
	sessions     map[string]string // token → username
	Messages     []ChatMessage
	Logins       []ChatLogin
	failedLogins int
}

func (c *chatInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.mux.ServeHTTP(w, r) }

// State implements Instance: {"messages": [ChatMessage], "logins": [ChatLogin], "failed_logins": n}.
func (c *chatInstance) State() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"messages": c.Messages, "logins": c.Logins,
		"failed_logins": c.failedLogins})
	return b
}

// chatShellData is what the shell template gets.
type chatShellData struct {
	Base      string
	Hydration hydrationDelay // the zero value renders at once
	Initial   string         // JSON of chatInitial, read by chat.js at boot
}

// chatInitial is the data the shell embeds for the first render (so it needs no request): the session's user
// (nil when logged out), the channels, and the routed channel's posts.
type chatInitial struct {
	Me       map[string]string `json:"me"`
	Channels []chatChannel     `json:"channels,omitempty"`
	Channel  string            `json:"channel,omitempty"`
	Posts    []chatPost        `json:"posts,omitempty"`
}

func (c *chatInstance) shell(w http.ResponseWriter, r *http.Request) {
	d := chatShellData{Base: c.env.Base}
	if c.env.Mutations.Has("late_hydration") {
		d.Hydration = lateHydration
	}
	var init chatInitial
	if u := c.user(r); u != nil {
		init.Me = chatUserJSON(u)
		init.Channels = chatChannels
		init.Channel = "town-square"
		if name := r.PathValue("name"); chatChannelByName(name) != nil {
			init.Channel = name
		}
		init.Posts = c.posts(init.Channel)
	}
	b, _ := json.Marshal(init)
	d.Initial = string(b)
	RenderPage(w, chatTpl, "index.html", http.StatusOK, d)
}

// chatTokenCookie is Mattermost's session cookie name.
const chatTokenCookie = "MMAUTHTOKEN"

// user returns the logged-in user of r, or nil.
func (c *chatInstance) user(r *http.Request) *chatUser {
	ck, err := r.Cookie(chatTokenCookie)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	name, ok := c.sessions[ck.Value]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return chatUserByLogin(name)
}

// chatUserJSON is the API's user object.
func chatUserJSON(u *chatUser) map[string]string {
	return map[string]string{"username": u.Username, "email": u.Email, "first_name": u.First,
		"last_name": u.Last}
}

func (c *chatInstance) unauthorized(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Please log in."})
}

// chatReadJSON decodes a small JSON body into v; false (after answering 400) on a bad body.
func chatReadJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Invalid request body."})
		return false
	}
	return true
}

func (c *chatInstance) apiLogin(w http.ResponseWriter, r *http.Request) {
	var req struct {
		LoginID  string `json:"login_id"`
		Password string `json:"password"`
	}
	if !chatReadJSON(w, r, &req) {
		return
	}
	u := chatUserByLogin(req.LoginID)
	if u == nil || req.Password != u.password {
		c.mu.Lock()
		c.failedLogins++
		c.mu.Unlock()
		writeJSON(w, http.StatusUnauthorized,
			map[string]string{"message": "Enter a valid email or username and/or password."})
		return
	}
	c.mu.Lock()
	// Deterministic per tenant and login: no randomness is needed, the tenant id is already unguessable.
	sum := sha256.Sum256([]byte(c.env.TenantID + "/" + u.Username + "/" + strconv.Itoa(len(c.Logins))))
	tok := hex.EncodeToString(sum[:16])
	c.sessions[tok] = u.Username
	c.Logins = append(c.Logins, ChatLogin{Username: u.Username})
	c.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: chatTokenCookie, Value: tok, Path: c.env.Base, HttpOnly: true,
		SameSite: http.SameSiteLaxMode})
	writeJSON(w, http.StatusOK, chatUserJSON(u))
}

func (c *chatInstance) apiLogout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(chatTokenCookie); err == nil {
		c.mu.Lock()
		delete(c.sessions, ck.Value)
		c.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: chatTokenCookie, Value: "", Path: c.env.Base, MaxAge: -1})
	writeJSON(w, http.StatusOK, map[string]string{"status": "OK"})
}

func (c *chatInstance) apiMe(w http.ResponseWriter, r *http.Request) {
	u := c.user(r)
	if u == nil {
		c.unauthorized(w)
		return
	}
	writeJSON(w, http.StatusOK, chatUserJSON(u))
}

func (c *chatInstance) apiChannels(w http.ResponseWriter, r *http.Request) {
	if c.user(r) == nil {
		c.unauthorized(w)
		return
	}
	writeJSON(w, http.StatusOK, chatChannels)
}

// posts returns channel's history followed by the tenant's posts in it, oldest first.
func (c *chatInstance) posts(channel string) []chatPost {
	out := []chatPost{}
	for _, p := range chatHistory {
		if p.Channel == channel {
			out = append(out, p)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range c.Messages {
		if m.Channel != channel {
			continue
		}
		out = append(out, c.postJSON(i, m))
	}
	return out
}

func (c *chatInstance) postJSON(i int, m ChatMessage) chatPost {
	p := chatPost{ID: "p" + strconv.Itoa(i+1), Channel: m.Channel, Author: m.Author, Text: m.Text, Time: "Just now"}
	if u := chatUserByLogin(m.Author); u != nil {
		p.Display = u.First + " " + u.Last
	}
	return p
}

func (c *chatInstance) apiPosts(w http.ResponseWriter, r *http.Request) {
	if c.user(r) == nil {
		c.unauthorized(w)
		return
	}
	name := r.PathValue("name")
	if chatChannelByName(name) == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Channel not found."})
		return
	}
	writeJSON(w, http.StatusOK, c.posts(name))
}

func (c *chatInstance) apiCreatePost(w http.ResponseWriter, r *http.Request) {
	u := c.user(r)
	if u == nil {
		c.unauthorized(w)
		return
	}
	var req struct {
		Channel string `json:"channel"`
		Message string `json:"message"`
	}
	if !chatReadJSON(w, r, &req) {
		return
	}
	if chatChannelByName(req.Channel) == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Channel not found."})
		return
	}
	text := strings.TrimSpace(req.Message)
	if text == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Message cannot be empty."})
		return
	}
	if len(text) > 4000 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Message is too long."})
		return
	}
	m := ChatMessage{Channel: req.Channel, Author: u.Username, Text: text}
	c.mu.Lock()
	c.Messages = append(c.Messages, m)
	p := c.postJSON(len(c.Messages)-1, m)
	c.mu.Unlock()
	writeJSON(w, http.StatusCreated, p)
}
