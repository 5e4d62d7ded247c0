// Package deploy holds the service definitions that run the DocForge manager for one user: a
// systemd user unit with its socket unit (socket activation) and a launchd agent. They are
// embedded so that 'docforge manager install' writes them with the path of the installed
// executable.
package deploy
