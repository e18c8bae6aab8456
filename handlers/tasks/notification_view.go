package tasks

import (
	"strconv"
	"strings"

	"kashi/models"
	tasksview "kashi/views/tasks"
)

// notificationView maps a notification to what the page shows. Its sentence is built in the
// page's language from its kind and what its key names (the task, the request, the quota's
// date or share); the stored message, written in one language for chat channels, is shown
// only for a kind the page does not know.
func notificationView(n models.Notification) tasksview.NotificationView {
	v := tasksview.NotificationView{Kind: n.Kind, Message: n.Message, CreatedAt: n.CreatedAt, Read: n.ReadAt != nil,
		TaskID: models.TaskOfNoteKey(n.Key)}
	parts := strings.Split(n.Key, ":")
	num := func(i int) int64 {
		if i >= len(parts) {
			return 0
		}
		x, _ := strconv.ParseInt(parts[i], 10, 64)
		return x
	}
	switch n.Kind {
	case "idle-notice", "reclaimed": // idle-notice:<task>:<unix>; task/<task>/reclaimed (reclaimed:<task> before)
		if id := num(1); id != 0 {
			v.TaskID = id
		}
		v.Message = ""
	case "request-pending", "request-approved", "request-rejected": // request:<id>, decided:<id>
		v.RequestID = num(1)
	case "quota-ends": // quota-ends:<quota>:<yyyy-mm-dd>:<days>
		if len(parts) > 2 {
			v.Date = parts[2]
		}
	case "budget": // budget:<quota>:<yyyy-mm>:<percent>
		v.Percent = int(num(3))
	case "schedule-suspended": // schedule-suspended:<schedule>:<owner>
		v.ScheduleID, v.Message = num(1), ""
		if len(parts) > 2 {
			v.Owner = parts[2]
		}
	case "weekly-report": // weekly-report:<yyyy-Www>:<project>
		if len(parts) > 1 {
			v.Week = parts[1]
		}
	}
	return v
}
