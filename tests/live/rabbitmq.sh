# rabbitmq.sh -- a RabbitMQ node of the tests' own, never the system's
# service: its name, ports, data, logs, config and Erlang cookie in one
# temporary folder.  Source it, then:
#   rmq_start DIR PORT [TICK_MS CONSUMER_TIMEOUT_MS]   start it, wait until it runs
#   rmq_ctl ARGS...                                    rabbitmqctl against it
#   rmq_stop                                           stop it (also at the script's exit)
# The AMQP listener is 127.0.0.1:PORT; the Erlang distribution port is
# PORT + 200 and its epmd PORT + 300 (so another node's epmd on 4369
# is never asked).  TICK_MS sets channel_tick_interval (advanced.config),
# CONSUMER_TIMEOUT_MS consumer_timeout; the firehose and the event
# exchange plugin are on.

RMQ_BIN=${RMQ_BIN:-/usr/lib/rabbitmq/bin}

rmq_env() {
    export HOME="$RMQ_DIR" RABBITMQ_NODENAME="lsimtest$RMQ_PORT@localhost" \
        RABBITMQ_NODE_PORT="$RMQ_PORT" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
        RABBITMQ_DIST_PORT=$((RMQ_PORT + 200)) ERL_EPMD_PORT=$((RMQ_PORT + 300)) \
        RABBITMQ_MNESIA_BASE="$RMQ_DIR/mnesia" RABBITMQ_LOG_BASE="$RMQ_DIR/log" \
        RABBITMQ_CONFIG_FILE="$RMQ_DIR/rabbitmq.conf" \
        RABBITMQ_ADVANCED_CONFIG_FILE="$RMQ_DIR/advanced.config" \
        RABBITMQ_ENABLED_PLUGINS_FILE="$RMQ_DIR/enabled_plugins" \
        RABBITMQ_CONF_ENV_FILE="$RMQ_DIR/rabbitmq-env.conf" RABBITMQ_PID_FILE="$RMQ_DIR/pid"
}

rmq_ctl() {
    (rmq_env; "$RMQ_BIN/rabbitmqctl" -n "$RABBITMQ_NODENAME" "$@")
}

rmq_start() {
    RMQ_DIR=$1 RMQ_PORT=$2
    rmq_tick=${3:-60000} rmq_timeout=${4:-1800000}
    mkdir -p "$RMQ_DIR"
    printf 'listeners.tcp.default = 127.0.0.1:%s\nloopback_users = none\nconsumer_timeout = %s\n' \
        "$RMQ_PORT" "$rmq_timeout" > "$RMQ_DIR/rabbitmq.conf"
    printf '[{rabbit, [{channel_tick_interval, %s}]}].\n' "$rmq_tick" > "$RMQ_DIR/advanced.config"
    echo '[rabbitmq_event_exchange].' > "$RMQ_DIR/enabled_plugins"
    : > "$RMQ_DIR/rabbitmq-env.conf"
    (rmq_env; "$RMQ_BIN/rabbitmq-server" > "$RMQ_DIR/server.out" 2>&1 &
     echo $! > "$RMQ_DIR/launcher.pid")
    if ! rmq_ctl wait "$RMQ_DIR/pid" --timeout 120 > "$RMQ_DIR/wait.out" 2>&1; then
        echo "rabbitmq: the test node did not start:" >&2
        tail -n 20 "$RMQ_DIR/server.out" "$RMQ_DIR/wait.out" >&2
        return 1
    fi
    rmq_ctl trace_on > /dev/null
}

rmq_stop() {
    [ -n "${RMQ_DIR:-}" ] && [ -f "$RMQ_DIR/pid" ] || return 0
    rmq_ctl stop "$RMQ_DIR/pid" > /dev/null 2>&1 || kill "$(cat "$RMQ_DIR/pid")" 2>/dev/null
    # its epmd (on its own port) serves this node alone
    (rmq_env; epmd -kill > /dev/null 2>&1) || true
    rm -f "$RMQ_DIR/pid"
}
