package people

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	peopleview "kashi/views/people"
)

// AccountPage shows the viewer's own account with the password form. GET /account.
func (h *Handler) AccountPage(c echo.Context) error {
	u := handlers.Who(c).User
	d := accountData(u)
	switch {
	case c.QueryParams().Has("changed"):
		d.Notice = peopleview.PasswordChangedNotice(handlers.Locale(c))
	case c.QueryParams().Has("chat"):
		d.Notice = peopleview.ChatIDsSavedNotice(handlers.Locale(c))
	}
	return handlers.Render(c, http.StatusOK, peopleview.Account(handlers.Locale(c), d))
}

// PasswordChange changes the viewer's own password when the current one matches, ending the
// user's other sessions: back to the account page with a notice, or the form with the refused field (422); two changes at
// once are 409. The current password is checked behind the login throttle: while its
// buckets are empty the form is refused with 429 and the wait. POST /account/password, from
// a browser session only (web's route table).
func (h *Handler) PasswordChange(c echo.Context) error {
	u, l := handlers.Who(c).User, handlers.Locale(c)
	try, wait := h.logins.begin(truncated(u.Name), handlers.ClientAddr(c), h.Now())
	if wait > 0 {
		d := peopleview.AccountData{Name: u.Name, Role: u.Role, Field: "current", Error: peopleview.PasswordThrottled(l, retryAfter(c, wait))}
		return handlers.Render(c, http.StatusTooManyRequests, peopleview.Account(l, d))
	}
	defer try.done()
	session := ""
	if ck, err := c.Cookie(SessionCookie); err == nil {
		session = ck.Value
	}
	err := h.store.ChangePassword(c.Request().Context(), u.ID, c.FormValue("current"), c.FormValue("password"), session, h.Now())
	var fe *models.FieldError
	switch {
	case err == nil:
		try.succeeded()
		return c.Redirect(http.StatusSeeOther, "/account?changed=1")
	case errors.Is(err, models.ErrConflict):
		return handlers.StoreError(err)
	case !errors.As(err, &fe):
		return err
	}
	if fe.Field == "current" {
		try.failed(h.Now())
	}
	d := accountData(u)
	d.Field, d.Error = fe.Field, handlers.Invalid(l, fe)
	return handlers.Render(c, http.StatusUnprocessableEntity, peopleview.Account(l, d))
}

// accountData is the account page of u, its forms as stored.
func accountData(u models.User) peopleview.AccountData {
	return peopleview.AccountData{Name: u.Name, Role: u.Role, ChatDingTalk: u.ChatDingTalk, ChatFeishu: u.ChatFeishu, ChatWeCom: u.ChatWeCom}
}

// ChatIDsChange sets the viewer's own chat ids (models.ChatIDs), by which the chat robots
// mention them: back to the account page with a notice, or the form with the refused field
// (422). POST /account/chat, from a browser session only (web's route table).
func (h *Handler) ChatIDsChange(c echo.Context) error {
	u, l := handlers.Who(c).User, handlers.Locale(c)
	ids := models.ChatIDs{DingTalk: strings.TrimSpace(c.FormValue("chat_dingtalk")), Feishu: strings.TrimSpace(c.FormValue("chat_feishu")),
		WeCom: strings.TrimSpace(c.FormValue("chat_wecom"))}
	err := h.store.SetChatIDs(c.Request().Context(), u.Name, u.Name, ids, h.Now())
	var fe *models.FieldError
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/account?chat=1")
	case !errors.As(err, &fe):
		return handlers.StoreError(err)
	}
	d := accountData(u)
	d.ChatDingTalk, d.ChatFeishu, d.ChatWeCom = ids.DingTalk, ids.Feishu, ids.WeCom
	d.ChatField, d.ChatError = fe.Field, handlers.Invalid(l, fe)
	return handlers.Render(c, http.StatusUnprocessableEntity, peopleview.Account(l, d))
}
