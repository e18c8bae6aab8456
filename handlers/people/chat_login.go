package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/sso"
)

// chat is the configured team chat named by the route's platform; nil for none.
func (h *Handler) chat(c echo.Context) *sso.Chat {
	for _, chat := range h.Cfg.Chats {
		if chat.Platform() == c.Param("platform") {
			return chat
		}
	}
	return nil
}

// ChatBegin starts a sign-in through a team chat (DingTalk, Feishu, WeCom): a fresh state
// kept for ten minutes, then off to the chat's login (its QR code, or at once inside the
// chat's own browser). GET /login/chat/:platform; 404 for a chat not configured.
func (h *Handler) ChatBegin(c echo.Context) error {
	chat := h.chat(c)
	if chat == nil {
		return echo.ErrNotFound
	}
	next := localPath(c.QueryParam("next"))
	if answered, err := h.tooMany(c, next); answered {
		return err
	}
	state := sso.NewState()
	return h.beginSignIn(c, chat.Platform(), "/login/chat/"+chat.Platform(), state, "", "", next, chat.AuthURL(state))
}

// ChatCallback finishes a sign-in through a team chat: the state must be this browser's,
// unused and begun at this chat; the code tells who signed in, their departments and their
// chat id; then the user is found or created, given what their departments map to and their
// chat id (for the robots' mentions), and a session opens.
// GET /login/chat/:platform/callback.
func (h *Handler) ChatCallback(c echo.Context) error {
	chat := h.chat(c)
	if chat == nil {
		return echo.ErrNotFound
	}
	if answered, err := h.tooMany(c, "/"); answered {
		return err
	}
	st, ok, err := h.takeSignIn(c, chat.Platform(), "/login/chat/"+chat.Platform())
	if !ok {
		return err
	}
	next := localPath(st.Next)
	if c.QueryParam("code") == "" && c.QueryParam("authCode") == "" {
		// The person declined, or closed the chat's login.
		return h.loginProblem(c, http.StatusUnauthorized, next, handlers.Locale(c).T("login.sso_failed"))
	}
	id, err := chat.Finish(c.Request().Context(), c.QueryParams())
	return h.finishSignIn(c, chat.Platform(), next, models.ExternalIdentity{ID: id.ID, Name: id.Name, Groups: id.Groups, ChatID: id.ChatID}, err)
}
