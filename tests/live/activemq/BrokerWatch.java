// BrokerWatch.java -- what the broker itself sees of the recorded queue, as a
// plugin that only observes: a message's publish when the broker receives it
// (send), a consumer's start and stop at its subscription and its removal
// (addConsumer, removeConsumer), and each dispatch into a consumer's
// prefetch buffer (preProcessDispatch), which also tells the listener on
// which consumer a message arrived.  A consumer's node is the client id of
// its connection (each node's container sets its own).
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.activemq.broker.BrokerPluginSupport;
import org.apache.activemq.broker.ConnectionContext;
import org.apache.activemq.broker.ProducerBrokerExchange;
import org.apache.activemq.broker.region.Subscription;
import org.apache.activemq.command.ActiveMQDestination;
import org.apache.activemq.command.ConsumerInfo;
import org.apache.activemq.command.Message;
import org.apache.activemq.command.MessageDispatch;

final class BrokerWatch extends BrokerPluginSupport {
    /** A consumer as the trace names it. */
    static final class Who {
        final String node, consumer;

        Who(String node, String consumer) {
            this.node = node;
            this.consumer = consumer;
        }
    }

    private final EventLog log;
    private final String queue;
    private final Map<String, Who> consumers = new ConcurrentHashMap<>();
    private final Map<String, Integer> perNode = new ConcurrentHashMap<>();
    private final Map<String, Who> lastDispatch = new ConcurrentHashMap<>();

    BrokerWatch(EventLog log, String queue) {
        this.log = log;
        this.queue = queue;
    }

    private boolean ours(ActiveMQDestination d) {
        return d != null && d.isQueue() && queue.equals(d.getPhysicalName());
    }

    @Override
    public void send(ProducerBrokerExchange exchange, Message m) throws Exception {
        if (ours(m.getDestination()))
            log.add(System.nanoTime(), "publish", null, null, m.getCorrelationId(), m.getGroupID());
        super.send(exchange, m);
    }

    @Override
    public Subscription addConsumer(ConnectionContext context, ConsumerInfo info) throws Exception {
        if (ours(info.getDestination())) {
            long t = System.nanoTime();
            String node = context.getClientId();
            int k = perNode.merge(node, 1, Integer::sum);
            Who who = new Who(node, "c" + k);
            consumers.put(info.getConsumerId().toString(), who);
            log.add(t, "consumer_start", who.node, who.consumer, null, null);
        }
        return super.addConsumer(context, info);
    }

    @Override
    public void removeConsumer(ConnectionContext context, ConsumerInfo info) throws Exception {
        Who who = ours(info.getDestination()) ? consumers.get(info.getConsumerId().toString())
                                              : null;
        if (who != null)
            log.add(System.nanoTime(), "consumer_stop", who.node, who.consumer, null, null);
        super.removeConsumer(context, info);
    }

    @Override
    public void preProcessDispatch(MessageDispatch md) {
        Message m = md.getMessage();
        Who who = m != null && ours(m.getDestination())
                      ? consumers.get(md.getConsumerId().toString()) : null;
        if (who != null) {
            lastDispatch.put(m.getCorrelationId(), who);
            log.add(System.nanoTime(), "deliver", who.node, who.consumer, m.getCorrelationId(),
                    m.getGroupID());
        }
        super.preProcessDispatch(md);
    }

    /** The consumer the broker last dispatched the message to (null: none). */
    Who dispatchedTo(String msg) {
        return lastDispatch.get(msg);
    }

    int consumersSeen() {
        return consumers.size();
    }
}
