#!/bin/sh
# build.sh OUTDIR -- compiles the ActiveMQ + Spring JMS recorder with javac
# against Debian's jars in /usr/share/java and writes OUTDIR/amq-recorder
# (amq-recorder DIR OUT.csv; DIR from `lsim record SCENARIO --export DIR`).
# Exit 77 with a message when javac, java or a jar is missing (make deps).
set -u
OUT=${1:?usage: build.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
JARS=/usr/share/java
missing() {
    echo "build.sh: $* (make deps installs it)" >&2
    exit 77
}
command -v javac > /dev/null || missing "no javac (openjdk-17-jdk-headless)"
command -v java > /dev/null || missing "no java (openjdk-17-jdk-headless)"
CP=""
for jar in activemq-broker activemq-client activemq-openwire-legacy geronimo-jms_1.1_spec \
    geronimo-j2ee-management-1.1-spec hawtbuf spring3-jms spring3-core spring3-beans \
    spring3-context spring3-transaction slf4j-api slf4j-simple jcl-over-slf4j; do
    [ -f "$JARS/$jar.jar" ] || missing "no $JARS/$jar.jar"
    CP="$CP${CP:+:}$JARS/$jar.jar"
done
mkdir -p "$OUT/classes" || exit 1
javac -nowarn -encoding UTF-8 -d "$OUT/classes" -cp "$CP" "$HERE"/*.java || exit 1
OUT_ABS=$(cd "$OUT" && pwd)
cat > "$OUT/amq-recorder.tmp" << EOF
#!/bin/sh
# amq-recorder DIR OUT.csv -- written by tests/live/activemq/build.sh
exec java -Xmx384m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \\
    -cp "$OUT_ABS/classes:$CP" Recorder "\$@"
EOF
chmod +x "$OUT/amq-recorder.tmp" && mv "$OUT/amq-recorder.tmp" "$OUT/amq-recorder"
