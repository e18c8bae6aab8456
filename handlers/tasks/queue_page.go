package tasks

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	tasksview "kashi/views/tasks"
)

// QueuePage renders the queue page, or only its lanes (and the free capacity, out of band)
// when htmx refreshes them (HX-Request); ?resubmit=id fills the form from that task,
// ?template=id from that template (with ?gpus=&spec=, as its advice asks).
// GET /queue.
func (h *Handler) QueuePage(c echo.Context) error {
	now := h.Now()
	form, err := h.resubmitForm(c)
	if err != nil {
		return err
	}
	if id := c.QueryParam("template"); id != "" && form.Values.Project == "" {
		if form, err = h.templateForm(c, id); err != nil {
			return err
		}
		if err := advisedInto(c, &form); err != nil {
			return err
		}
	}
	d, err := h.queueData(c.Request().Context(), handlers.Who(c), now, form)
	if err != nil {
		return err
	}
	c.Response().Header().Add("Vary", "HX-Request, Accept-Language, Cookie")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	l := handlers.Locale(c)
	if handlers.IsHTMX(c) {
		return handlers.Render(c, http.StatusOK, tasksview.QueuePartial(l, d))
	}
	return handlers.Render(c, http.StatusOK, tasksview.Queue(l, d))
}
