// Work.java -- the listener: begin, work for the message's service time (the
// lsim_service_ns property; parked, not spun, so that two cores can carry
// many listeners), end.  The consumer a message is begun on is the one the
// broker dispatched it to.
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;

final class Work implements MessageListener {
    static final String SERVICE = "lsim_service_ns";

    private final EventLog log;            // null: the warm-up's, which records nothing
    private final BrokerWatch watch;
    private final String node;
    final AtomicInteger ended = new AtomicInteger(), errors = new AtomicInteger(),
                        redelivered = new AtomicInteger();
    final AtomicLong lastEndNs = new AtomicLong(Long.MIN_VALUE);

    Work(EventLog log, BrokerWatch watch, String node) {
        this.log = log;
        this.watch = watch;
        this.node = node;
    }

    @Override
    public void onMessage(Message m) {
        long begin = System.nanoTime();
        try {
            String id = m.getJMSCorrelationID(), group = m.getStringProperty("JMSXGroupID");
            long service = m.propertyExists(SERVICE) ? m.getLongProperty(SERVICE) : 0;
            if (m.getJMSRedelivered())
                redelivered.incrementAndGet();
            BrokerWatch.Who who = watch == null ? null : watch.dispatchedTo(id);
            if (log != null && who == null)
                errors.incrementAndGet();
            String consumer = who == null ? "unknown" : who.consumer;
            if (log != null)
                log.add(begin, "begin", node, consumer, id, group);
            for (long left = service; left > 0; left = begin + service - System.nanoTime())
                LockSupport.parkNanos(left);
            long end = System.nanoTime();
            if (log != null)
                log.add(end, "end", node, consumer, id, group);
            lastEndNs.accumulateAndGet(end, Math::max);
            ended.incrementAndGet();
        } catch (JMSException e) {
            errors.incrementAndGet();
        }
    }
}
