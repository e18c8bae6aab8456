package tasks

import "time"

// NotificationsData is the viewer's notifications page, with the tasks whose idle cards are
// about to be reclaimed and whose notices the viewer may answer.
type NotificationsData struct {
	Now   time.Time
	Idle  []IdleTaskView
	Notes []NotificationView
	// Unread counts the notes not read yet.
	Unread int
	Notice string
	Error  string
}

// IdleTaskView is a running task with a pending idle notice or a keep that the viewer may
// answer: their own, or one of a project they lead.
type IdleTaskView struct {
	ID      int64
	Name    string
	Project string
	// Owner is who submitted the task.
	Owner    string
	GPUs     int
	NoticeAt *time.Time
	// ReclaimAt is when the cards are reclaimed unless kept: the notice's time plus the
	// task's grace; nil without a notice.
	ReclaimAt *time.Time
	// KeptUntil is the end of a keep in force; nil when none.
	KeptUntil *time.Time
	// KeepsLeft is how many keeps today still allows; KeepFor how long one holds.
	KeepsLeft int
	KeepFor   time.Duration
}

// NotificationView is one in-app notification.
type NotificationView struct {
	// TaskID is the task a notification is about; Message is then the task's name, or ""
	// when the page does not know it.
	TaskID int64
	// RequestID is the quota request a notification is about; Date the day a quota ends;
	// Percent the share of a budget used; Week the week of a weekly report.
	RequestID int64
	Date      string
	Percent   int
	Week      string
	// ScheduleID and Owner name a schedule Kashi suspended and its owner.
	ScheduleID int64
	Owner      string
	// Project is the project it is about; "" when it names none.
	Project   string
	Kind      string
	Message   string
	CreatedAt time.Time
	Read      bool
}
