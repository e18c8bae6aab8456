// Package notice tells people what they should know: quota reminders before a contract ends
// or a budget runs out, GPU memory alerts, the sending of every alert to the chat channels,
// idle-reclaim notices to a task's owner and its project's leads, and the weekly report, one
// message per project, once a week. It decides from the store and sends through package
// notify, in the installation's language (package phrase).
package notice
