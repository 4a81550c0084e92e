package agent

import "errors"

var errNoChat = errors.New("agent: no model client in this attempt")
